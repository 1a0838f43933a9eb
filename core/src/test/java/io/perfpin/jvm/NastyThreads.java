package io.perfpin.jvm;

import java.io.FileDescriptor;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A JVM whose threads have names built to confuse a thread-dump parser. It starts them, prints what it
 * knows about each (the truth a dump is checked against), prints {@code ready}, and lives until its stdin
 * closes.
 *
 * <p>Output, one line per thread: {@code javaId TAB tid TAB daemon TAB name}, the name escaped as by
 * {@link #escape}. Two threads forge a whole header line after a line break in their name: their lines
 * start with {@code forger}, and what they forge is printed as {@code forged javaId TAB tid}.
 *
 * <p>Runs on JDK 17 and later: the tests start it under each JDK binary, and the fixtures under
 * {@code jvm/} were dumped from it.
 */
public final class NastyThreads {
    static final String[] NAMES = {
        "plain-worker",
        "with \"quotes\" inside",
        "ends with quote\"",
        "\"starts with quote",
        "\" #7 ",
        "hash #42 inside",
        "fake\" #999 daemon prio=5 os_prio=0 cpu=0.00ms elapsed=0.00s tid=0x0000000000000001 nid=0x1 runnable  ",
        "VM Thread\" os_prio=0 cpu=1.00ms elapsed=1.00s tid=0x0000000000000001 nid=0x1 runnable  ",
        "[brackets] [4242]",
        "\u00fcn\u00efc\u00f6d\u00e9 \u7ebf\u7a0b \uD83D\uDE80",
        "  spaces  around  ",
        "",
        "tab\there",
        "carriage\rreturn",
        "line\nbreak",
        "two\n\nbreaks",
        "trailing newline\n",
        "\n\"leading newline",
        "head\" #777 prio=5 os_prio=0 cpu=0.00ms elapsed=0.00s tid=0x0000000000000001 nid=0x1 runnable\ntail",
        "back\\slash \\\" x",
        "long-" + "x".repeat(300),
    };

    private NastyThreads() {}

    public static void main(String[] args) throws Exception {
        PrintStream out = new PrintStream(new FileOutputStream(FileDescriptor.out), true, StandardCharsets.UTF_8);
        Thread main = Thread.currentThread();
        int mainTid = currentTid();
        List<String> names = new ArrayList<>(List.of(NAMES));
        // Claims main's own Java id and TID: the parser must not hand out main's TID twice.
        String mainForgery = forgery(main.getId(), mainTid);
        // Claims a TID that is not a thread of this process: capture must drop it.
        String foreignForgery = forgery(999_999, 1);
        names.add(mainForgery);
        names.add(foreignForgery);

        CountDownLatch started = new CountDownLatch(names.size());
        CountDownLatch exit = new CountDownLatch(1);
        int[] tids = new int[names.size()];
        Thread[] threads = new Thread[names.size()];
        for (int i = 0; i < names.size(); i++) {
            int index = i;
            threads[i] = new Thread(
                    () -> {
                        try {
                            tids[index] = currentTid();
                        } catch (IOException e) {
                            throw new IllegalStateException(e);
                        }
                        started.countDown();
                        try {
                            exit.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    names.get(i));
            threads[i].setDaemon(i % 2 == 1);
            threads[i].start();
        }
        started.await();
        awaitParked(threads);

        out.println(line(main, mainTid));
        for (int i = 0; i < threads.length; i++) {
            String name = threads[i].getName();
            String prefix = name.equals(mainForgery) || name.equals(foreignForgery) ? "forger\t" : "";
            out.println(prefix + line(threads[i], tids[i]));
        }
        out.println("forged\t" + main.getId() + "\t" + mainTid);
        out.println("forged\t999999\t1");
        out.println("ready");
        while (System.in.read() >= 0) {
            // lives until the test closes our stdin
        }
        exit.countDown();
    }

    /** A name that ends its header line early and forges a complete one, then a blank line. */
    private static String forgery(long javaId, int tid) {
        return "x\n\"forged\" #" + javaId + " prio=5 os_prio=0 cpu=0.00ms elapsed=0.00s tid=0x0000000000000001 nid=0x"
                + Integer.toHexString(tid) + " runnable  \n\ny";
    }

    private static String line(Thread thread, int tid) {
        return thread.getId() + "\t" + tid + "\t" + thread.isDaemon() + "\t" + escape(thread.getName());
    }

    /** Backslash escapes for backslash, line feed, carriage return and tab: one thread per line. */
    static String escape(String name) {
        return name.replace("\\", "\\\\")
                .replace("\n", "\\n")
                .replace("\r", "\\r")
                .replace("\t", "\\t");
    }

    static String unescape(String escaped) {
        StringBuilder name = new StringBuilder(escaped.length());
        for (int i = 0; i < escaped.length(); i++) {
            char c = escaped.charAt(i);
            if (c != '\\') {
                name.append(c);
                continue;
            }
            char next = escaped.charAt(++i);
            name.append(next == 'n' ? '\n' : next == 'r' ? '\r' : next == 't' ? '\t' : next);
        }
        return name.toString();
    }

    /** Waits until every thread is parked, so that a dump shows each WAITING. */
    static void awaitParked(Thread[] threads) throws InterruptedException {
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        for (Thread thread : threads) {
            while (thread.getState() != Thread.State.WAITING) {
                if (System.nanoTime() > deadline) {
                    throw new AssertionError(thread.getName() + " not parked after 60 s: " + thread.getState());
                }
                Thread.sleep(1);
            }
        }
    }

    static int currentTid() throws IOException {
        return Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                .getFileName()
                .toString());
    }
}
