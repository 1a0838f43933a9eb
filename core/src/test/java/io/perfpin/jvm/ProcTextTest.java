package io.perfpin.jvm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ProcTextTest {
    @TempDir
    Path dir;

    @Test
    void aThreadsStatusNamesItAsTheKernelDoes() throws Exception {
        String tid = Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                .getFileName()
                .toString();
        String before = Thread.currentThread().getName();
        Thread.currentThread().setName("proc-text-abcd\u00e9-and-more");
        try {
            String status = ProcText.read("/proc/self/task/" + tid + "/status");
            // the kernel keeps 15 bytes of a name: here the last one is the first half of "é"
            assertTrue(status.startsWith("Name:\tproc-text-abcd\uFFFD\n"), status);
            assertTrue(status.contains("\nPid:\t" + tid + "\n"), status);
            assertTrue(status.contains("\nnonvoluntary_ctxt_switches:"), status);
        } finally {
            Thread.currentThread().setName(before);
        }
    }

    @Test
    void aFileLongerThanTheFirstReadIsReadWhole() throws IOException {
        String text = "\u00e9t\u00e9 ".repeat(3_000); // 15,000 bytes: the buffer grows twice
        Path file = Files.writeString(dir.resolve("long"), text, StandardCharsets.UTF_8);
        assertEquals(text, ProcText.read(file.toString()));
        assertEquals("", ProcText.read(Files.createFile(dir.resolve("empty")).toString()));
    }

    /** Against the kernel's own files, read by the JDK: a tab after {@code status}'s names, spaces in limits. */
    @Test
    void aFieldIsTheFirstWordAfterItsName() throws IOException {
        String status = ProcText.read("/proc/self/status");
        String fdSize = Files.readAllLines(Paths.get("/proc/self/status")).stream()
                .filter(line -> line.startsWith("FDSize:"))
                .findFirst()
                .orElseThrow()
                .split("\\s+")[1];
        assertEquals(fdSize, ProcText.word(status, "\nFDSize:"));
        String openFiles = Files.readAllLines(Paths.get("/proc/self/limits")).stream()
                .filter(line -> line.startsWith("Max open files"))
                .findFirst()
                .orElseThrow()
                .split("\\s+")[3];
        assertEquals(openFiles, ProcText.word(ProcText.read("/proc/self/limits"), "\nMax open files"));
        assertEquals(null, ProcText.word(status, "\nNoSuchField:"));
        assertEquals("", ProcText.word("Name:", "Name:"), "a name that ends the text");
    }

    @Test
    void aThreadThatIsNotThereCannotBeRead() {
        long pid = ProcessHandle.current().pid();
        assertThrows(IOException.class, () -> ProcText.read("/proc/" + pid + "/task/" + Integer.MAX_VALUE + "/stat"));
    }
}
