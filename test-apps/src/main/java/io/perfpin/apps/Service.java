package io.perfpin.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;

/**
 * A long-running multi-threaded "service" with no annotations, for attach and {@code stat --pid} tests:
 * {@code workers} threads named {@code worker-<i>}, each spinning briefly then napping, until its standard
 * input closes or {@code seconds} pass, and {@code parked} idle threads named {@code parked-<i>} that only wait,
 * as the idle threads of a large pool do. It prints {@code thread <name> tid <tid>} for each worker, then
 * {@code ready} once every thread has started. Input lines:
 * <pre>
 *   end NAME          ends worker NAME                                 -> "ended NAME"
 *   start NAME        starts another worker named NAME                 -> "thread NAME tid TID"
 *   spin NAME         starts a thread NAME that spins without a pause, a
 *                     busy thread that never blocks; \t and \n in NAME
 *                     stand for a tab and a newline, a backslash, u and
 *                     four hex digits for that UTF-16 unit (NUL, half a
 *                     character), as Java writes them                  -> "thread NAME tid TID"
 *   park N PREFIX     starts N threads PREFIX-I that only wait, each
 *                     on a small stack (run the JVM with -Xss256k or so
 *                     for thousands)                                    -> "parked N"
 * </pre>
 *
 * <p>Usage: {@code java io.perfpin.apps.Service [workers] [seconds] [parked]}.
 */
public final class Service {
    /** Enough for a thread that only waits: thousands of them need not reserve a default stack each. */
    private static final long PARKED_STACK_BYTES = 256 << 10;

    private static final Object PRINT_LOCK = new Object();
    private static final Map<String, Thread> WORKERS = new ConcurrentHashMap<>();
    /** Parked threads wait on it for good: the JVM exits around them. */
    private static final CountDownLatch NEVER = new CountDownLatch(1);

    private Service() {}

    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        int parked = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        for (int i = 0; i < workers; i++) {
            startWorker("worker-" + i);
        }
        park(parked, "parked");
        Thread stdin = new Thread(
                () -> {
                    BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
                    try {
                        // The parent keeps it open while it wants the service running.
                        for (String line = in.readLine(); line != null; line = in.readLine()) {
                            obey(line.split(" "));
                        }
                    } catch (IOException e) {
                        // closed either way
                    }
                    System.exit(0);
                },
                "stdin-watcher");
        stdin.setDaemon(true);
        stdin.start();
        Thread.sleep(100);
        say("ready");
        Thread.sleep(seconds * 1000);
    }

    private static void obey(String[] words) {
        if (words.length == 2 && words[0].equals("end")) {
            Thread worker = WORKERS.get(words[1]);
            if (worker != null) {
                worker.interrupt();
            }
        } else if (words.length == 2 && words[0].equals("start")) {
            startWorker(words[1]);
        } else if (words.length == 2 && words[0].equals("spin")) {
            startSpinner(words[1]);
        } else if (words.length == 3 && words[0].equals("park")) {
            int threads = Integer.parseInt(words[1]);
            park(threads, words[2]);
            say("parked " + threads);
        }
    }

    private static void park(int threads, String prefix) {
        for (int i = 0; i < threads; i++) {
            Thread parked = new Thread(null, Service::waitForGood, prefix + "-" + i, PARKED_STACK_BYTES);
            parked.setDaemon(true);
            parked.start();
        }
    }

    private static void startWorker(String name) {
        Thread worker = new Thread(
                () -> {
                    say("thread " + Thread.currentThread().getName() + " tid " + ownTid());
                    while (true) {
                        Spinner.spin(1_000_000L);
                        try {
                            Sleeper.sleep(1, 1);
                        } catch (InterruptedException e) {
                            say("ended " + Thread.currentThread().getName());
                            return;
                        }
                    }
                },
                name);
        worker.setDaemon(true);
        WORKERS.put(name, worker);
        worker.start();
    }

    /** {@code spelled} as the spin command writes it: the thread's name, said as it was spelled. */
    private static void startSpinner(String spelled) {
        String name = unescape(spelled);
        Thread spinner = new Thread(
                () -> {
                    say("thread " + spelled + " tid " + ownTid());
                    while (!Thread.currentThread().isInterrupted()) {
                        Spinner.spin(1_000_000L);
                    }
                    say("ended " + Thread.currentThread().getName());
                },
                name);
        spinner.setDaemon(true);
        WORKERS.put(name, spinner);
        spinner.start();
    }

    private static String unescape(String spelled) {
        StringBuilder name = new StringBuilder();
        for (int i = 0; i < spelled.length(); i++) {
            char c = spelled.charAt(i);
            char next = i + 1 < spelled.length() ? spelled.charAt(i + 1) : 0;
            if (c == '\\' && next == 't') {
                name.append('\t');
                i++;
            } else if (c == '\\' && next == 'n') {
                name.append('\n');
                i++;
            } else if (c == '\\' && next == 'u' && i + 6 <= spelled.length()) {
                name.append((char) Integer.parseInt(spelled.substring(i + 2, i + 6), 16));
                i += 5;
            } else {
                name.append(c);
            }
        }
        return name.toString();
    }

    private static void waitForGood() {
        try {
            NEVER.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private static void say(String line) {
        synchronized (PRINT_LOCK) {
            System.out.println(line);
            System.out.flush();
        }
    }

    /** The kernel's id of the calling thread, from /proc/thread-self (a link to /proc/<pid>/task/<tid>). */
    static int ownTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                    .getFileName()
                    .toString());
        } catch (IOException e) {
            return -1;
        }
    }
}
