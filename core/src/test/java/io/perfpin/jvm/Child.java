package io.perfpin.jvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/** A process the tests attach to; closing it closes its stdin, which ends {@link NastyThreads}. */
final class Child implements AutoCloseable {
    final Process process;
    final List<String> output = new ArrayList<>();
    /** What it printed after {@code ready}: a thread dump, when a SIGQUIT did not start its listener. */
    final List<String> later = java.util.Collections.synchronizedList(new ArrayList<>());

    private Thread drain;

    private Child(List<String> command) throws IOException {
        this(command, null);
    }

    private Child(List<String> command, Path directory) throws IOException {
        process = new ProcessBuilder(command).directory(directory == null ? null : directory.toFile())
                .redirectError(ProcessBuilder.Redirect.INHERIT).start();
    }

    static Child start(String... command) throws IOException {
        return new Child(List.of(command));
    }

    /** Starts {@link NastyThreads} with {@code launcher} (a java binary and its options) and reads its truth. */
    static Child nastyThreads(String... launcher) throws IOException {
        return ready(NastyThreads.class, launcher);
    }

    /** Starts {@code main} with {@code launcher} (a java binary and its options) and reads its output to ready. */
    static Child ready(Class<?> main, String... launcher) throws IOException {
        return readyIn(null, main, launcher);
    }

    /** As {@link #ready}, working in {@code directory} (null: this process's). */
    static Child readyIn(Path directory, Class<?> main, String... launcher) throws IOException {
        List<String> command = new ArrayList<>(List.of(launcher));
        command.addAll(List.of("-cp", classpathOf(main), main.getName()));
        Child child = new Child(command, directory);
        child.readUntilReady();
        return child;
    }

    /** Everything it printed after {@code ready}, once it has ended (after {@link #end}). */
    List<String> printedAfterReady() throws InterruptedException {
        drain.join(TimeUnit.SECONDS.toMillis(30));
        return List.copyOf(later);
    }

    static String classpathOf(Class<?> type) {
        try {
            return Path.of(type.getProtectionDomain().getCodeSource().getLocation().toURI()).toString();
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    NastyTruth truth() {
        return NastyTruth.parse(output);
    }

    /** Reads stdout up to {@code ready}, then drains the rest (a JVM may print a thread dump there). */
    private void readUntilReady() throws IOException {
        BufferedReader lines = new BufferedReader(new InputStreamReader(process.getInputStream(),
                StandardCharsets.UTF_8));
        String line;
        while ((line = lines.readLine()) != null && !line.equals("ready")) {
            output.add(line);
        }
        if (line == null) {
            throw new IllegalStateException("child ended before it was ready: " + output);
        }
        drain = new Thread(() -> {
            try {
                for (String next = lines.readLine(); next != null; next = lines.readLine()) {
                    later.add(next);
                }
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }, "child stdout drain");
        drain.setDaemon(true);
        drain.start();
    }

    long pid() {
        return process.pid();
    }

    /** The exit status, once stdin is closed: 128 + n for death by signal n. */
    int end() throws IOException, InterruptedException {
        process.getOutputStream().close();
        if (!process.waitFor(30, TimeUnit.SECONDS)) {
            process.destroyForcibly();
        }
        return process.waitFor();
    }

    @Override
    public void close() throws IOException {
        process.getOutputStream().close();
        try {
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly().waitFor();
            }
        } catch (InterruptedException e) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
