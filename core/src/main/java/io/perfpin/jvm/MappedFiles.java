package io.perfpin.jvm;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;

/**
 * The files a process has mapped, from {@code /proc/PID/maps}, each path as the process names it (in its own mount
 * namespace): where a JVM keeps a file of its own (its hsperfdata file, its agent's stats file), it names the file
 * itself, whatever else lies beside it or whatever its command line shows. Only a place to look: the file there is
 * opened as the JVM's user, in its root ({@link TargetFiles}), and checked as every other.
 */
final class MappedFiles {
    private MappedFiles() {}

    /**
     * The first path mapped that ends in {@code end}, in a directory whose name starts as {@code directory} does
     * ({@code /hsperfdata_}; empty for any); empty when there is none, or the maps cannot be read.
     */
    static Optional<String> ending(long pid, String directory, String end) {
        // Line by line, never whole: the target decides how long its maps are (65,530 mappings, each path up to
        // 4 KiB), while the kernel bounds each line. Bytes as ISO-8859-1, since a path need not be UTF-8.
        try (BufferedReader maps = new BufferedReader(new InputStreamReader(
                Files.newInputStream(Path.of("/proc/" + pid + "/maps")), StandardCharsets.ISO_8859_1))) {
            for (String line; (line = maps.readLine()) != null; ) {
                int path = line.indexOf(" /");
                int parent = line.lastIndexOf('/', line.length() - end.length() - 1);
                if (path >= 0 && line.endsWith(end) && parent > path && line.startsWith(directory, parent)) {
                    byte[] bytes = line.substring(path + 1).getBytes(StandardCharsets.ISO_8859_1);
                    return Optional.of(new String(bytes, StandardCharsets.UTF_8));
                }
            }
        } catch (IOException e) {
            // not ours to read, or gone
        }
        return Optional.empty();
    }
}
