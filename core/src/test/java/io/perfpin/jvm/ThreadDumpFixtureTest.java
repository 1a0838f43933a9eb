package io.perfpin.jvm;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * Real dumps of {@link NastyThreads}, taken through the JDK's own attach API from JDK 17 (hex nids) and
 * Temurin 25 ({@code [tid]} and decimal nids), checked against what the program knew; see jvm/README.md.
 */
class ThreadDumpFixtureTest {
    @ParameterizedTest
    @ValueSource(strings = {"jdk17", "jdk25"})
    void readsEveryNastyNameWithItsIdAndTid(String jdk) throws IOException {
        ThreadDump dump = ThreadDump.parse(dump(jdk));
        NastyTruth truth = NastyTruth.parse(resource(jdk + "-nasty-threads.tsv").lines().toList());

        truth.check(dump, false, tid -> tid);
    }

    @Test
    void jdk17SystemThreadsAreJavaThreadsButGcThreadsAreNot() throws IOException {
        ThreadDump dump = ThreadDump.parse(dump("jdk17"));

        assertTrue(dump.javaThreads().contains(new JavaThreadInfo("Signal Dispatcher", 4, 0x7917, true,
                Thread.State.RUNNABLE)), dump.javaThreads().toString());
        assertTrue(dump.vmThreads().contains(new VmThreadInfo("GC Thread#0", 0x790f)), dump.vmThreads().toString());
        assertEquals(List.of("VM Periodic Task Thread", "VM Thread", "G1 Service", "G1 Refine#0", "G1 Conc#0",
                "G1 Main Marker", "GC Thread#0"), dump.vmThreads().stream().map(VmThreadInfo::name).toList());
    }

    @Test
    void jdk25BracketedTidAndDecimalNidAgree() throws IOException {
        String text = dump("jdk25");
        ThreadDump dump = ThreadDump.parse(text);

        for (JavaThreadInfo t : dump.javaThreads()) {
            if (t.javaId() != NastyTruth.FOREIGN_FORGERY.javaId()) {
                assertTrue(text.contains(" [" + t.tid() + "] ") && text.contains(" nid=" + t.tid() + " "),
                        t.toString());
            }
        }
    }

    private static String dump(String jdk) throws IOException {
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
