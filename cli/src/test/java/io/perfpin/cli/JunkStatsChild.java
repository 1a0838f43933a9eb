package io.perfpin.cli;

import io.perfpin.stats.StatsFileName;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * A JVM that maps a file where its stats file would be, under the directory its {@code -Dperfpin.dir} names, but
 * one too short to be one: as a hostile JVM may, with a directory named to carry escape sequences into what perfpin
 * prints. Says "ready", then waits to be ended.
 */
public final class JunkStatsChild {
    private JunkStatsChild() {}

    public static void main(String[] args) throws Exception {
        Path jvms = Files.createDirectories(Path.of(System.getProperty("perfpin.dir"), "jvms"));
        Path junk = jvms.resolve(StatsFileName.ofThisProcess().name());
        Files.write(junk, new byte[100]);
        try (FileChannel file = FileChannel.open(junk, StandardOpenOption.READ)) {
            file.map(FileChannel.MapMode.READ_ONLY, 0, 100);
            System.out.println("ready");
            Thread.sleep(60_000);
        }
    }
}
