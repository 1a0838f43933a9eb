package io.perfpin.apps;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.locks.LockSupport;

/**
 * A long-running multi-threaded "service" with no annotations, for attach and {@code stat --pid} tests:
 * {@code workers} threads named {@code worker-<i>}, each spinning briefly then napping, until its standard
 * input closes or {@code seconds} pass, and {@code parked} idle threads named {@code parked-<i>}, parked
 * throughout, as the idle threads of a large pool are. It prints {@code thread <name> tid <tid>} for each worker,
 * then {@code ready} once every thread has started. The input line {@code end <name>} ends that worker, which
 * prints {@code ended <name>}.
 *
 * <p>Usage: {@code java io.perfpin.apps.Service [workers] [seconds] [parked]}.
 */
public final class Service {
    private Service() {
    }

    public static void main(String[] args) throws Exception {
        int workers = args.length > 0 ? Integer.parseInt(args[0]) : 2;
        long seconds = args.length > 1 ? Long.parseLong(args[1]) : 60;
        int parked = args.length > 2 ? Integer.parseInt(args[2]) : 0;
        Object printLock = new Object();
        Map<String, Thread> byName = new ConcurrentHashMap<>();
        for (int i = 0; i < workers; i++) {
            Thread worker = new Thread(() -> {
                synchronized (printLock) {
                    System.out.println("thread " + Thread.currentThread().getName() + " tid " + ownTid());
                }
                while (true) {
                    Spinner.spin(1_000_000L);
                    try {
                        Sleeper.sleep(1, 1);
                    } catch (InterruptedException e) {
                        synchronized (printLock) {
                            System.out.println("ended " + Thread.currentThread().getName());
                        }
                        return;
                    }
                }
            }, "worker-" + i);
            worker.setDaemon(true);
            byName.put(worker.getName(), worker);
            worker.start();
        }
        for (int i = 0; i < parked; i++) {
            Thread idle = new Thread(Service::parkForever, "parked-" + i);
            idle.setDaemon(true);
            idle.start();
        }
        Thread stdin = new Thread(() -> {
            BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
            try {
                // The parent keeps it open while it wants the service running.
                for (String line = in.readLine(); line != null; line = in.readLine()) {
                    Thread worker = line.startsWith("end ") ? byName.get(line.substring("end ".length())) : null;
                    if (worker != null) {
                        worker.interrupt();
                    }
                }
            } catch (IOException e) {
                // closed either way
            }
            System.exit(0);
        }, "stdin-watcher");
        stdin.setDaemon(true);
        stdin.start();
        Thread.sleep(100);
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(seconds * 1000);
    }

    private static void parkForever() {
        while (true) {
            LockSupport.park(); // it may return spuriously
        }
    }

    /** The kernel's id of the calling thread, from /proc/thread-self (a link to /proc/<pid>/task/<tid>). */
    static int ownTid() {
        try {
            return Integer.parseInt(Files.readSymbolicLink(Paths.get("/proc/thread-self")).getFileName().toString());
        } catch (IOException e) {
            return -1;
        }
    }
}
