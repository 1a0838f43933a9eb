package io.perfpin.cli;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What /proc says about another process and its threads, read as a test checks the outcome. */
final class ProcFiles {
    private ProcFiles() {}

    /** The thread's {@code Cpus_allowed_list}, such as {@code 0-1}. */
    static String cpusAllowed(long pid, int tid) {
        return field(Paths.get("/proc/" + pid + "/task/" + tid + "/status"), "Cpus_allowed_list");
    }

    /** A field of the process's status file, such as {@code Uid}: its value, stripped. */
    static String statusField(long pid, String name) {
        return field(Paths.get("/proc/" + pid + "/status"), name);
    }

    private static String field(Path status, String name) {
        for (String line : lines(status)) {
            if (line.startsWith(name + ":")) {
                return line.substring(name.length() + 1).strip();
            }
        }
        throw new AssertionError("no " + name + " in " + status);
    }

    /** A process started with it ignored (a background job of a script) ignores it, and so does a JVM it starts. */
    static final int SIGINT = 2;

    /** Whether the process ignores {@code signal} ({@code SigIgn:}, whose bit n-1 stands for signal n). */
    static boolean ignores(long pid, int signal) {
        for (String line : lines(Paths.get("/proc/" + pid + "/status"))) {
            if (line.startsWith("SigIgn:")) {
                return (Long.parseUnsignedLong(
                                        line.substring("SigIgn:".length()).strip(), 16)
                                & 1L << (signal - 1))
                        != 0;
            }
        }
        throw new AssertionError("no SigIgn in /proc/" + pid + "/status");
    }

    /** Each live thread's {@code Cpus_allowed_list}, by TID; a thread that ends while they are read is left out. */
    static Map<Integer, String> cpusAllowedOfEachThread(long pid) {
        Map<Integer, String> cpus = new TreeMap<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                int tid = Integer.parseInt(task.getFileName().toString());
                try {
                    cpus.put(tid, cpusAllowed(pid, tid));
                } catch (UncheckedIOException ended) {
                    if (!(ended.getCause() instanceof NoSuchFileException)) {
                        throw ended;
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return cpus;
    }

    /** The TID of the process's thread named {@code name} (its {@code comm}, 15 bytes at most). */
    static int tidNamed(long pid, String name) {
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                if (lines(task.resolve("comm")).equals(List.of(name))) {
                    return Integer.parseInt(task.getFileName().toString());
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        throw new AssertionError("no thread named " + name + " in process " + pid);
    }

    /**
     * Each live thread's kernel name ({@code comm}, cut at 15 bytes); a thread that ends while they are read is left
     * out.
     */
    static List<String> threadNames(long pid) {
        List<String> names = new ArrayList<>();
        try (DirectoryStream<Path> tasks = Files.newDirectoryStream(Paths.get("/proc/" + pid + "/task"))) {
            for (Path task : tasks) {
                linesOrNone(task.resolve("comm")).stream().findFirst().ifPresent(names::add);
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    /** Whether the process maps a file of that name, such as {@code libinstrument.so}, which every Java agent loads. */
    static boolean maps(long pid, String fileName) {
        return lines(Paths.get("/proc/" + pid + "/maps")).stream().anyMatch(l -> l.endsWith("/" + fileName));
    }

    /** The fields of {@code /proc/<pid>/stat} from field 3 (state) on; empty once the process is gone. */
    static List<String> statFields(long pid) {
        List<String> lines = linesOrNone(Paths.get("/proc/" + pid + "/stat"));
        if (lines.isEmpty()) {
            return List.of();
        }
        String stat = lines.get(0);
        return List.of(stat.substring(stat.lastIndexOf(") ") + 2).split(" "));
    }

    /** The kernel's name of a process ({@code comm}); empty once it is gone. */
    static String command(long pid) {
        List<String> lines = linesOrNone(Paths.get("/proc/" + pid + "/comm"));
        return lines.isEmpty() ? "" : lines.get(0);
    }

    /** Line by line: Files.readString on a procfs file, whose size reads as 0, returns only its first byte. */
    private static List<String> lines(Path file) {
        try {
            return Files.readAllLines(file);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static List<String> linesOrNone(Path file) {
        try {
            return lines(file);
        } catch (UncheckedIOException e) {
            if (e.getCause() instanceof NoSuchFileException) {
                return List.of();
            }
            throw e;
        }
    }
}
