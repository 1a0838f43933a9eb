package io.perfpin.cli;

import io.perfpin.PerfpinDirectory;
import io.perfpin.apps.PageToucher;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.registry.RegistryConfig;
import io.perfpin.registry.ThreadRegistry;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.concurrent.CountDownLatch;

/**
 * A JVM that counts as the agent does: a ThreadRegistry counting the sched preset every 50 ms, publishing
 * to a stats file and recording JSON lines, and one enrolled thread, {@code page-toucher}, that touches
 * pages and then waits.
 *
 * <p>Usage: {@code RegistryChild STATS|default|later JSONL|- MiB}; {@code default} is this JVM's stats file in the
 * perfpin directory, {@code later} the same file made only when the input line {@code publish} comes, as an agent
 * makes it a moment after it starts; {@code -} records nothing. It prints {@code thread page-toucher tid T javaId J},
 * then {@code touched N} (pages). The input line {@code end} ends the thread and closes the registry, which prints
 * {@code closed}; the end of its input ends the JVM, closed or not.
 */
public final class RegistryChild {
    private RegistryChild() {}

    public static void main(String[] args) throws Exception {
        Path own = PerfpinDirectory.statsFile(ProcessHandle.current().pid());
        CountDownLatch publish = new CountDownLatch(1);
        RegistryConfig config =
                RegistryConfig.of(EventList.parse("sched", new EventParser())).withInterval(50_000_000L);
        config = switch (args[0]) {
            case "default" -> config.withStatsFile(own);
            case "later" ->
                config.withStatsFileLater(() -> {
                    try {
                        publish.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                    return own;
                });
            default -> config.withStatsFile(Path.of(args[0]));
        };
        if (!args[1].equals("-")) {
            config = config.withJsonLines(Path.of(args[1]));
        }
        long bytes = Long.parseLong(args[2]) << 20;
        ThreadRegistry registry = ThreadRegistry.start(
                Backends.syscalls(), config, notice -> System.out.println("warning: " + notice.text()));
        CountDownLatch end = new CountDownLatch(1);
        Thread toucher = new Thread(
                () -> {
                    // Loads what printing and touching pages need before counting starts: the counts are the pages.
                    int tid = ThreadAffinity.system().currentTid();
                    PageToucher.touch(PageToucher.PAGE_SIZE);
                    System.out.println("warming up " + tid);
                    registry.enrolCurrentThread(null, null);
                    System.out.println("thread page-toucher tid " + tid + " javaId "
                            + Thread.currentThread().getId());
                    System.out.println("touched " + PageToucher.touch(bytes));
                    try {
                        end.await();
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    } finally {
                        registry.threadEnded(Thread.currentThread());
                    }
                },
                "page-toucher");
        toucher.start();
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("publish")) {
                publish.countDown();
            } else if (line.equals("end")) {
                end.countDown();
                toucher.join();
                registry.close();
                System.out.println("closed");
            }
        }
        System.exit(0);
    }
}
