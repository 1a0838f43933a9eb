package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.IntUnaryOperator;

/** What {@link NastyThreads} knew about its own threads, and the check of a dump against it. */
public record NastyTruth(JavaThreadInfo main, List<JavaThreadInfo> threads, List<JavaThreadInfo> forgers) {
    /** The forgery that names a TID outside the process: a parse keeps it, a capture drops it. */
    static final JavaThreadInfo FOREIGN_FORGERY = new JavaThreadInfo("x\n\"forged", 999_999, 1, false, null);

    /** What the program knew when its dump of JDK {@code jdk} (jdk17, jdk25) among this module's fixtures was taken. */
    public static NastyTruth fixture(String jdk) throws IOException {
        try (InputStream in = NastyTruth.class.getResourceAsStream("/jvm/" + jdk + "-nasty-threads.tsv")) {
            return parse(new String(in.readAllBytes(), StandardCharsets.UTF_8)
                    .lines()
                    .toList());
        }
    }

    /** Every thread's name: main's, the named threads', the forgers'. */
    public List<String> names() {
        List<String> names = new ArrayList<>(List.of(main.name()));
        threads.forEach(t -> names.add(t.name()));
        forgers.forEach(t -> names.add(t.name()));
        return names;
    }

    static NastyTruth parse(List<String> lines) {
        JavaThreadInfo main = null;
        List<JavaThreadInfo> threads = new ArrayList<>();
        List<JavaThreadInfo> forgers = new ArrayList<>();
        for (String line : lines) {
            String[] fields = line.split("\t", -1);
            if (fields[0].equals("forged") || fields[0].equals("ready")) {
                continue;
            }
            boolean forger = fields[0].equals("forger");
            int at = forger ? 1 : 0;
            // The named threads wait on a latch: parked, so WAITING.
            JavaThreadInfo thread = new JavaThreadInfo(
                    NastyThreads.unescape(fields[at + 3]),
                    Long.parseLong(fields[at]),
                    Integer.parseInt(fields[at + 1]),
                    Boolean.parseBoolean(fields[at + 2]),
                    Thread.State.WAITING);
            if (main == null) {
                main = thread;
            } else {
                (forger ? forgers : threads).add(thread);
            }
        }
        return new NastyTruth(main, threads, forgers);
    }

    /**
     * Checks a dump of the program: every named thread exactly; main and the forgers absent (main's entry is
     * claimed twice, the forgers' headers are broken by design); nothing else naming the program's ids or
     * TIDs. {@code innerTid} turns a dumped TID into the TID the program saw.
     */
    void check(ThreadDump dump, boolean captured, IntUnaryOperator innerTid) {
        Map<Long, JavaThreadInfo> byId = new HashMap<>();
        dump.javaThreads().forEach(t -> byId.put(t.javaId(), t));
        for (JavaThreadInfo expected : threads) {
            JavaThreadInfo actual = byId.get(expected.javaId());
            assertNotNull(actual, "missing " + NastyThreads.escape(expected.name()));
            assertEquals(
                    expected,
                    new JavaThreadInfo(
                            actual.name(),
                            actual.javaId(),
                            innerTid.applyAsInt(actual.tid()),
                            actual.daemon(),
                            actual.state()));
        }
        assertFalse(byId.containsKey(main.javaId()), "main's id is claimed by a forgery too: its entry must go");
        forgers.forEach(f -> assertFalse(byId.containsKey(f.javaId()), NastyThreads.escape(f.name())));
        assertEquals(!captured, dump.javaThreads().contains(FOREIGN_FORGERY));

        Set<Long> ours = new HashSet<>();
        Set<Integer> ourTids = new HashSet<>();
        threads.forEach(t -> {
            ours.add(t.javaId());
            ourTids.add(t.tid());
        });
        ours.add(main.javaId());
        ourTids.add(main.tid());
        forgers.forEach(f -> ours.add(f.javaId()));
        for (JavaThreadInfo t : dump.javaThreads()) {
            if (!ours.contains(t.javaId()) && !t.equals(FOREIGN_FORGERY)) {
                assertFalse(ourTids.contains(innerTid.applyAsInt(t.tid())), "JVM thread " + t + " claims one of ours");
            }
        }
        for (VmThreadInfo t : dump.vmThreads()) {
            assertFalse(ourTids.contains(innerTid.applyAsInt(t.tid())), "VM thread " + t + " claims one of ours");
        }
        assertTrue(dump.vmThreads().stream().anyMatch(t -> t.name().equals("VM Thread")), "VM Thread");
    }
}
