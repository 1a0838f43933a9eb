package io.perfpin.cli;

import org.junit.jupiter.api.Test;

import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.HashMap;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

class StatCommandTest {
    private static final Pattern WORKER = Pattern.compile("thread (worker-\\d+) tid (\\d+)");

    @Test
    void countsAnotherJvmsThreadsFromOutsideNamedByItsThreadDump() throws Exception {
        String java = Paths.get(System.getProperty("java.home"), "bin", "java").toString();
        Process service = new ProcessBuilder(java, "-cp", System.getProperty("java.class.path"),
                "io.perfpin.apps.Service", "2", "120").redirectErrorStream(true).start();
        try {
            Map<String, Integer> tids = new HashMap<>();
            BufferedReader out = new BufferedReader(new InputStreamReader(service.getInputStream(), StandardCharsets.UTF_8));
            for (String line = out.readLine(); line != null && !line.equals("ready"); line = out.readLine()) {
                Matcher m = WORKER.matcher(line);
                if (m.matches()) {
                    tids.put(m.group(1), Integer.parseInt(m.group(2)));
                }
            }
            assertEquals(2, tids.size());

            CliRun run = CliRun.capture(() -> Perfpin.run("stat", "--pid", Long.toString(service.pid()),
                    "--threads", "worker-.*", "--events", "sched", "--duration", "300ms", "--format", "json"));
            assertEquals(ExitCode.OK, run.code, run.err);
            String[] lines = run.out.strip().split("\n");
            assertEquals(2, lines.length, run.out);
            for (String json : lines) {
                String name = field(json, "name");
                assertTrue(tids.containsKey(name), json);
                assertEquals(Integer.toString(tids.get(name)), field(json, "tid"), json);
                assertEquals("thread", field(json, "type"));
                assertTrue(Long.parseLong(counter(json, "task-clock")) > 0, json);
                // Each worker naps for 1 ms per loop, so it is switched out again and again.
                assertTrue(Long.parseLong(counter(json, "context-switches")) > 10, json);
                assertTrue(json.contains("\"unsupported\":{}"), json);
            }
        } finally {
            service.getOutputStream().close();
            service.waitFor();
        }
    }

    @Test
    void aPidWithNoProcessAndAProcessThatIsNoJvmHaveTheirOwnExitCodes() throws Exception {
        CliRun missing = CliRun.capture(() -> Perfpin.run("stat", "--pid", "99999999"));
        assertEquals(ExitCode.NO_SUCH_PROCESS, missing.code, missing.err);
        assertEquals(1, missing.err.strip().split("\n").length, missing.err);

        Process sleep = new ProcessBuilder("sleep", "30").start();
        try {
            CliRun notJvm = CliRun.capture(() -> Perfpin.run("stat", "--pid", Long.toString(sleep.pid())));
            assertEquals(ExitCode.NOT_A_JVM, notJvm.code, notJvm.err);
            assertTrue(notJvm.err.contains("not a HotSpot JVM"), notJvm.err);
            assertTrue(sleep.isAlive(), "perfpin never harms a process that is not a JVM");
        } finally {
            sleep.destroy();
        }
    }

    private static String field(String json, String key) {
        Matcher m = Pattern.compile("\"" + key + "\":\"?([^\",}]*)").matcher(json);
        assertTrue(m.find(), key + " in " + json);
        return m.group(1);
    }

    private static String counter(String json, String event) {
        return field(json.substring(json.indexOf("\"counters\"")), event);
    }
}
