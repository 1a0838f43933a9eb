package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Real dumps of {@link NastyThreads}, taken through the JDK's own attach API from JDK 17 (hex nids) and
 * Temurin 25 ({@code [tid]} and decimal nids), and of {@link MountedVirtualThreads} on Temurin 25, checked
 * against what the programs knew; see jvm/README.md.
 */
class ThreadDumpFixtureTest {
    @ParameterizedTest
    @ValueSource(strings = {"jdk17", "jdk25"})
    void readsEveryNastyNameWithItsIdAndTid(String jdk) throws IOException {
        ThreadDump dump = ThreadDump.parse(dump(jdk));
        NastyTruth truth = NastyTruth.fixture(jdk);

        truth.check(dump, false, tid -> tid);
    }

    @Test
    void jdk17SystemThreadsAreJavaThreadsButGcThreadsAreNot() throws IOException {
        ThreadDump dump = ThreadDump.parse(dump("jdk17"));

        assertTrue(
                dump.javaThreads()
                        .contains(new JavaThreadInfo("Signal Dispatcher", 4, 0x7917, true, Thread.State.RUNNABLE)),
                dump.javaThreads().toString());
        assertTrue(
                dump.vmThreads().contains(new VmThreadInfo("GC Thread#0", 0x790f)),
                dump.vmThreads().toString());
        assertEquals(
                List.of(
                        "VM Periodic Task Thread",
                        "VM Thread",
                        "G1 Service",
                        "G1 Refine#0",
                        "G1 Conc#0",
                        "G1 Main Marker",
                        "GC Thread#0"),
                dump.vmThreads().stream().map(VmThreadInfo::name).toList());
    }

    @Test
    void jdk25BracketedTidAndDecimalNidAgree() throws IOException {
        String text = dump("jdk25");
        ThreadDump dump = ThreadDump.parse(text);

        for (JavaThreadInfo t : dump.javaThreads()) {
            if (t.javaId() != NastyTruth.FOREIGN_FORGERY.javaId()) {
                assertTrue(
                        text.contains(" [" + t.tid() + "] ") && text.contains(" nid=" + t.tid() + " "), t.toString());
            }
        }
    }

    /**
     * JDK 21 and later print a carrier that has a virtual thread mounted with its {@code [tid]} and no
     * {@code nid=}; JDK 24 and later follow it with the mounted thread's own stack. Each carrier keeps its TID
     * and its own name, and no stack text ends up in a name.
     */
    @Test
    void jdk25CarriersOfMountedVirtualThreadsKeepTheirTids() throws IOException {
        String text = resource("jdk25-virtual-thread-print.txt");
        ThreadDump dump = ThreadDump.parse(text);
        Map<Integer, JavaThreadInfo> byTid = new HashMap<>();
        dump.javaThreads().forEach(t -> byTid.put(t.tid(), t));
        int carriers = 0;
        for (String line : resource("jdk25-virtual-threads.tsv").lines().toList()) {
            String[] fields = line.split("\t");
            JavaThreadInfo t = byTid.get(Integer.parseInt(fields[fields[0].equals("carrier") ? 1 : 2]));
            if (fields[0].equals("carrier")) {
                carriers++;
                assertTrue(t != null && t.name().startsWith("ForkJoinPool-1-worker-"), line + ": " + t);
            } else {
                assertEquals(
                        new JavaThreadInfo(
                                fields[3],
                                Long.parseLong(fields[1]),
                                Integer.parseInt(fields[2]),
                                true,
                                Thread.State.TIMED_WAITING),
                        t);
            }
        }
        assertEquals(2, carriers);
        long headers =
                text.lines().filter(l -> l.startsWith("\"") && l.contains(" #")).count();
        assertEquals(headers, dump.javaThreads().size(), "every Java thread of the dump, no more");
        for (JavaThreadInfo t : dump.javaThreads()) {
            assertFalse(t.name().contains("\n") || t.name().contains("\tat "), t.toString());
        }
    }

    /**
     * A name can write a whole header on its first line, followed by a line that begins with a space, with numbers
     * that no thread has: a Java id past a long, a TID or nid past an int. Such an entry goes missing, and every
     * thread of the real dump around it is read as before.
     */
    @ParameterizedTest
    @ValueSource(
            strings = {
                "#99999999999999999999 prio=5 os_prio=0 tid=0x1 nid=0x1",
                "#5 [99999999999] prio=5 os_prio=0 tid=0x1 nid=99999999999",
                "#5 prio=5 os_prio=0 tid=0x1 nid=0x80000000",
                "#5 prio=5 os_prio=0 tid=0x1 nid=99999999999",
                "os_prio=0 tid=0x1 nid=0xfffffffffffffffff"
            })
    void aForgedHeaderWithNumbersNoThreadHasGoesMissingAlone(String forged) throws IOException {
        String text = dump("jdk17");
        ThreadDump truth = ThreadDump.parse(text);
        String entry = "\"a\" " + forged + "\n x\" #77777 prio=5 os_prio=0 tid=0x2 nid=0x3 runnable\n"
                + "   java.lang.Thread.State: RUNNABLE\n\n";
        int threads = text.indexOf("\n\"") + 1;

        ThreadDump dump = ThreadDump.parse(text.substring(0, threads) + entry + text.substring(threads));

        assertEquals(truth.javaThreads(), dump.javaThreads());
        assertEquals(truth.vmThreads(), dump.vmThreads());
    }

    static String dump(String jdk) throws IOException {
        try (InputStream in = ThreadDumpFixtureTest.class.getResourceAsStream("/jvm/" + jdk + "-thread-print.bin")) {
            byte[] bytes = in.readAllBytes();
            return ModifiedUtf8.decode(bytes, 0, bytes.length);
        }
    }

    static String resource(String name) throws IOException {
        try (InputStream in = ThreadDumpFixtureTest.class.getResourceAsStream("/jvm/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }
}
