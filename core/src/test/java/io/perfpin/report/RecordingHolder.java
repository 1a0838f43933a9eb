package io.perfpin.report;

import java.nio.file.Path;

/**
 * Another process that records to a file, as the JVM that launched a JMH fork does: it creates its recording, says
 * so on its output, writes a line, and keeps the file open until its input closes.
 */
public final class RecordingHolder {
    private RecordingHolder() {}

    public static void main(String[] args) throws Exception {
        try (JsonLinesFile recording =
                RecordingFile.create(Path.of(args[0]), ProcessHandle.current().pid(), Long.parseLong(args[1]))) {
            recording.write("{\"type\":\"holder\"}");
            recording.flush();
            System.out.println("recording to " + recording.path());
            System.out.flush();
            while (System.in.read() >= 0) {
                // until the test closes our input
            }
        }
    }
}
