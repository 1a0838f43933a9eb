package io.perfpin.agent.apps;

import io.perfpin.apps.PageToucher;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The application the agent tests run, with or without the agent: threads with known work that wait for the
 * test before they end, so the test can look at them from outside while they live. It reads commands from
 * stdin, one per line, and answers on stdout:
 * <pre>
 *   start NAME PAGES       a plain thread NAME touches PAGES pages   -> "touched NAME TID"
 *   annotated NAME PAGES   the same through a @Pinned("1") @Counted("sched") Runnable
 *   virtual NAME PAGES     the annotated Runnable in a virtual thread (JDK 21+) -> "touched NAME TID-OF-CARRIER"
 *   vstart NAME PAGES      as start, in a virtual thread (JDK 21+)    -> "touched NAME TID-OF-CARRIER"
 *   vlong N                a virtual thread (JDK 21+) named slow, N x and y=, which says so once it runs, and waits
 *                          for finish: a name too long for a command line -> "vlong running"
 *   vcompute N PREFIX MS   N virtual threads PREFIX-I (JDK 21+), each computing MS ms of CPU time in 1 ms slices
 *                          separated by 1 ms sleeps, so that they unmount and change carriers -> "vcomputed N"
 *   vpark N PREFIX         N virtual threads PREFIX-I (JDK 21+) that only wait, each mounted once -> "vparked N"
 *   vyield N NAME          a virtual thread NAME (JDK 21+) that yields N times, and so is mounted N + 1 times, then
 *                          ends                                      -> "vyielded NAME" once it ended
 *   vtogether PREFIX MS    two virtual threads PREFIX-0 and PREFIX-1 (JDK 21+) that wait, spinning, until both run at
 *                          once, so on two carriers, then each compute MS ms of CPU time without unmounting, yield,
 *                          compute MS ms again, and end (two mounts each) -> "vtogether PREFIX" once both ended
 *   vburst N PREFIX        N virtual threads PREFIX-I (JDK 21+) that do nothing, started as fast as they end, a
 *                          thousand at a time, none kept once started -> "vbursted N" once all ran
 *   vhold N PREFIX MS      N virtual threads PREFIX-I (JDK 21+), each computing as vcompute's do, then waiting for
 *                          vrelease                                  -> "vholding N" once all computed
 *   vrelease               those of vhold end                        -> "vreleased N" once all ended
 *   vchurn S PREFIX MS     S streams, each running virtual threads PREFIX-S-I one after another, I from 0, each
 *                          computing as vcompute's do, until vchurned -> "vchurning S"
 *   vchurned NANOS         stops the streams; per stream, how many of its virtual threads ran their first
 *                          instruction before System.nanoTime() NANOS (after their first mount, then) and how many
 *                          were started in all -> "vchurned S BEFORE ALL" each, then "vchurned"
 *   vmethod MS SLEEP       a virtual thread calls a @Counted method that computes MS ms of CPU time, sleeps SLEEP ms,
 *                          and computes MS ms again                  -> "vmethod done"
 *   spawn PARENT CHILD     thread PARENT starts thread CHILD         -> "touched CHILD TID" (0 pages)
 *   selfpin NAME CPU CHILD thread NAME pins itself to CPU (taskset, as an application pins its own threads), then
 *                          starts thread CHILD                        -> "touched CHILD TID" (0 pages)
 *   equal NAME ROLE        a thread NAME of a Thread subclass equal by ROLE to every other of it (as Lombok's
 *                          {@code @EqualsAndHashCode} makes one), which waits for end NAME -> "touched NAME TID"
 *   end NAME               that thread ends                           -> "ended NAME" once it did
 *   method CALLS PAGES     main calls a @Counted method CALLS times  -> "called CALLS"
 *   churn N PAGES PREFIX   N threads PREFIX-I, two at a time, each touching PAGES pages -> "churned N"; PREFIX
 *                          may list several, A,B: thread I is then named after the (I mod 2)th, A-0, B-1, A-2 ...
 *   churning PREFIX        threads PREFIX-I, two at a time, each touching a page, from a thread named churner,
 *                          until finish                             -> "churning"
 *   paced NAME PAGES N     a thread NAME touches PAGES pages N times, 30 ms apart, and ends -> "paced NAME TID";
 *                          with a fifth word, stay, it waits for finish instead of ending
 *   park N PREFIX          N threads PREFIX-I that only wait              -> "parked N"
 *   open N                 opens /dev/null N times and keeps the files open, up to the first failure
 *                          -> "opened K of N", then ": why" if K is less
 *   close                  closes the files that open opened          -> "closed K"
 *   fullheap MS            main fills the heap and keeps it full for MS ms, as an application short of memory for
 *                          a while, then lets it go                   -> "heap let go" (run with a small -Xmx)
 *   starved NAME PAGES     as start, after opening /dev/null until none is left: the thread starts with no free
 *                          descriptor, even where another thread freed one since the last open -> "touched NAME TID"
 *   finish                 every waiting thread ends; then "done" and exit 0
 * </pre>
 * With the system property {@value #EARLY} set to NAME:PAGES, main() first starts a thread NAME that touches PAGES
 * pages, and says whether the agent was up then: "early started before the agent was up" (or "after"), then "touched
 * NAME TID" once the thread ran. With {@value #MAIN_TOUCH} set to PAGES, main() first touches PAGES pages itself, and
 * says "main touched PAGES before the agent was up" (or "after").
 */
public final class AgentTestApp {
    /** The system property that asks for a thread started as main() begins. */
    public static final String EARLY = "perfpin.test.early";
    /** The system property that asks main() to touch pages as it begins. */
    public static final String MAIN_TOUCH = "perfpin.test.main-touch";

    private static final CountDownLatch FINISH = new CountDownLatch(1);
    private static final List<Thread> THREADS = new ArrayList<>();
    private static final List<FileChannel> FILES = new ArrayList<>();
    /** Enough for a thread that only waits: 3,300 of them need not reserve a default stack each. */
    private static final long PARKED_STACK_BYTES = 256 << 10;

    private AgentTestApp() {}

    /**
     * The agent, given by {@code -javaagent}, starts on a thread of its own while main() runs: the tests look at this
     * JVM once that start is over, as they did when premain did all of it.
     */
    private static void awaitAgentStart() throws InterruptedException {
        for (Thread thread : Thread.getAllStackTraces().keySet()) {
            if (thread.getName().equals("perfpin-start")) {
                thread.join(10_000);
            }
        }
    }

    public static void main(String[] args) throws Exception {
        String mainTouch = System.getProperty(MAIN_TOUCH);
        if (mainTouch != null) {
            // main's first act, while the agent may still start beside main(): counted from premain on
            boolean agentUp = "running".equals(System.getProperty("perfpin.agent"));
            PageToucher.touch(Long.parseLong(mainTouch) * PageToucher.PAGE_SIZE);
            say("main touched " + mainTouch + " " + (agentUp ? "after" : "before") + " the agent was up");
        }
        String early = System.getProperty(EARLY);
        if (early != null) {
            // main's first act, while the agent may still start beside main(): the thread waits for it
            boolean agentUp = "running".equals(System.getProperty("perfpin.agent"));
            int colon = early.indexOf(':');
            start(new Toucher(Integer.parseInt(early.substring(colon + 1))), early.substring(0, colon));
            say("early started " + (agentUp ? "after" : "before") + " the agent was up");
        }
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        // Loads what touching pages needs once, so a counted thread's faults are its pages, not class loading.
        PageToucher.touch(PageToucher.PAGE_SIZE);
        // And what a started thread runs: it must start when the test has taken every file descriptor.
        new Toucher(0);
        tid();
        awaitAgentStart();
        say("ready");
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            String[] word = line.trim().split(" ");
            switch (word[0]) {
                case "start" -> start(new Toucher(Integer.parseInt(word[2])), word[1]);
                case "starved" -> {
                    fill();
                    start(new Toucher(Integer.parseInt(word[2])), word[1]);
                }
                case "annotated" -> start(new PinnedToucher(Integer.parseInt(word[2])), word[1]);
                case "virtual" -> startVirtual(new PinnedToucher(Integer.parseInt(word[2])), word[1]);
                case "vpark" -> virtualPark(Integer.parseInt(word[1]), word[2]);
                case "vburst" -> virtualBurst(Integer.parseInt(word[1]), word[2]);
                case "vstart" -> startVirtual(new Toucher(Integer.parseInt(word[2])), word[1]);
                case "vmethod" -> {
                    long perMilli = iterationsPerCpuMilli();
                    int millis = Integer.parseInt(word[1]);
                    int sleep = Integer.parseInt(word[2]);
                    startVirtual(() -> CountedWork.computeAroundSleep(perMilli * millis, sleep), "vm")
                            .join();
                    say("vmethod done");
                }
                case "vlong" ->
                    startVirtual(
                            () -> {
                                say("vlong running");
                                awaitFinish();
                            },
                            "slow" + "x".repeat(Integer.parseInt(word[1])) + "y=");
                case "vyield" -> virtualYield(Integer.parseInt(word[1]), word[2]);
                case "vtogether" -> virtualTogether(word[1], Integer.parseInt(word[2]));
                case "vcompute" -> virtualCompute(Integer.parseInt(word[1]), word[2], Integer.parseInt(word[3]));
                case "vhold" -> virtualHold(Integer.parseInt(word[1]), word[2], Integer.parseInt(word[3]));
                case "vrelease" -> {
                    RELEASE.countDown();
                    for (Thread t : HELD) {
                        t.join();
                    }
                    say("vreleased " + HELD.size());
                }
                case "vchurn" -> virtualChurn(Integer.parseInt(word[1]), word[2], Integer.parseInt(word[3]));
                case "vchurned" -> virtualChurned(Long.parseLong(word[1]));
                case "spawn" ->
                    start(
                            () -> {
                                start(new Toucher(0), word[2]);
                                new Toucher(0).run();
                            },
                            word[1]);
                case "selfpin" ->
                    start(
                            () -> {
                                pinSelf(word[2]);
                                start(new Toucher(0), word[3]);
                                new Toucher(0).run();
                            },
                            word[1]);
                case "equal" -> start(new EqualByRole(word[1], word[2]));
                case "end" -> {
                    Thread ending = EqualByRole.end(word[1]);
                    ending.join();
                    say("ended " + word[1]);
                }
                case "method" -> {
                    int calls = Integer.parseInt(word[1]);
                    for (int i = 0; i < calls; i++) {
                        CountedWork.touch(Integer.parseInt(word[2]));
                    }
                    say("called " + calls);
                }
                case "churn" -> churn(Integer.parseInt(word[1]), Integer.parseInt(word[2]), word[3]);
                case "churning" -> churning(word[1]);
                case "paced" -> paced(word[1], Integer.parseInt(word[2]), Integer.parseInt(word[3]), word.length > 4);
                case "park" -> park(Integer.parseInt(word[1]), word[2]);
                case "open" -> open(Integer.parseInt(word[1]));
                case "fullheap" -> fullHeap(Long.parseLong(word[1]));
                case "close" -> {
                    for (FileChannel file : FILES) {
                        file.close();
                    }
                    say("closed " + FILES.size());
                    FILES.clear();
                }
                case "finish" -> {
                    FINISH.countDown();
                    EqualByRole.endAll();
                    List<Thread> all;
                    synchronized (THREADS) {
                        all = new ArrayList<>(THREADS);
                    }
                    for (Thread t : all) {
                        t.join();
                    }
                    say("done");
                    return;
                }
                default -> say("unknown command " + line);
            }
        }
    }

    private static void start(Runnable work, String name) {
        start(new Thread(work, name));
    }

    private static void start(Thread thread) {
        synchronized (THREADS) {
            THREADS.add(thread);
        }
        thread.start();
    }

    /** Pins the calling thread to {@code cpu} as an application would itself, from outside the agent's reach. */
    private static void pinSelf(String cpu) {
        try {
            Process taskset = new ProcessBuilder("taskset", "-pc", cpu, tid())
                    .redirectErrorStream(true)
                    .redirectOutput(ProcessBuilder.Redirect.DISCARD)
                    .start();
            if (taskset.waitFor() != 0) {
                throw new IllegalStateException("taskset -pc " + cpu + " failed: " + taskset.exitValue());
            }
        } catch (IOException | InterruptedException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Through reflection: this class is compiled for JDK 17, which has no virtual threads. */
    private static Thread startVirtual(Runnable work, String name) throws ReflectiveOperationException {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderType.getMethod("name", String.class).invoke(builder, name);
        Thread thread =
                (Thread) builderType.getMethod("unstarted", Runnable.class).invoke(builder, work);
        synchronized (THREADS) {
            THREADS.add(thread);
        }
        thread.start();
        return thread;
    }

    /**
     * As a server that runs each request in a virtual thread of its own, {@value #BURST_AT_ONCE} at most at once, so
     * that those not yet run hold little of the heap: only their count is kept.
     */
    private static void virtualBurst(int threads, String prefix) throws Exception {
        Class<?> builderType = Class.forName("java.lang.Thread$Builder");
        Object builder = Thread.class.getMethod("ofVirtual").invoke(null);
        builder = builderType.getMethod("name", String.class, long.class).invoke(builder, prefix + "-", 0L);
        ThreadFactory factory = (ThreadFactory) builderType.getMethod("factory").invoke(builder);
        Semaphore running = new Semaphore(BURST_AT_ONCE);
        for (int i = 0; i < threads; i++) {
            running.acquire();
            factory.newThread(running::release).start();
        }
        running.acquire(BURST_AT_ONCE);
        say("vbursted " + threads);
    }

    private static final int BURST_AT_ONCE = 1000;

    private static void virtualCompute(int threads, String prefix, int millis) throws Exception {
        long perMilli = iterationsPerCpuMilli();
        List<Thread> started = new ArrayList<>();
        for (int i = 0; i < threads; i++) {
            started.add(startVirtual(() -> computeInSlices(perMilli, millis), prefix + "-" + i));
        }
        for (Thread t : started) {
            t.join();
        }
        say("vcomputed " + threads);
    }

    private static void virtualYield(int yields, String name) throws Exception {
        startVirtual(
                        () -> {
                            for (int i = 0; i < yields; i++) {
                                Thread.yield();
                            }
                        },
                        name)
                .join();
        say("vyielded " + name);
    }

    private static void virtualTogether(String prefix, int millis) throws Exception {
        long perMilli = iterationsPerCpuMilli();
        AtomicInteger running = new AtomicInteger();
        List<Thread> both = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            both.add(startVirtual(
                    () -> {
                        running.incrementAndGet();
                        while (running.get() < 2) {
                            Thread.onSpinWait(); // mounted throughout: the other runs on another carrier
                        }
                        compute(perMilli * millis);
                        Thread.yield();
                        compute(perMilli * millis);
                    },
                    prefix + "-" + i));
        }
        for (Thread t : both) {
            t.join();
        }
        say("vtogether " + prefix);
    }

    /** MS ms of CPU time in 1 ms slices separated by 1 ms sleeps, so that the thread unmounts and changes carriers. */
    private static void computeInSlices(long perMilli, int millis) {
        try {
            for (int slice = 0; slice < millis; slice++) {
                compute(perMilli);
                Thread.sleep(1);
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** The virtual threads of vhold, and what they wait for. */
    private static final List<Thread> HELD = new ArrayList<>();

    private static final CountDownLatch RELEASE = new CountDownLatch(1);

    private static void virtualHold(int threads, String prefix, int millis) throws Exception {
        long perMilli = iterationsPerCpuMilli();
        CountDownLatch computed = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            HELD.add(startVirtual(
                    () -> {
                        computeInSlices(perMilli, millis);
                        computed.countDown();
                        try {
                            RELEASE.await();
                        } catch (InterruptedException e) {
                            Thread.currentThread().interrupt();
                        }
                    },
                    prefix + "-" + i));
        }
        computed.await(60, TimeUnit.SECONDS); // the test's own wait fails on fewer
        say("vholding " + (threads - computed.getCount()));
    }

    /**
     * The streams of vchurn, and per stream when each of its virtual threads ran its first instruction
     * (System.nanoTime()): after its first mount, where an agent decides whether it is counted.
     */
    private static final List<Thread> CHURNERS = new ArrayList<>();

    private static final List<List<Long>> CHURN_STARTS = new ArrayList<>();
    private static volatile boolean churning;

    private static void virtualChurn(int streams, String prefix, int millis) {
        long perMilli = iterationsPerCpuMilli();
        churning = true;
        for (int s = 0; s < streams; s++) {
            List<Long> starts = new ArrayList<>();
            CHURN_STARTS.add(starts);
            String name = prefix + "-" + s + "-";
            Thread churner = new Thread(
                    () -> {
                        try {
                            for (int i = 0; churning; i++) {
                                int index = i;
                                synchronized (starts) {
                                    starts.add(Long.MAX_VALUE); // until it runs
                                }
                                Runnable work = () -> {
                                    synchronized (starts) {
                                        starts.set(index, System.nanoTime());
                                    }
                                    computeInSlices(perMilli, millis);
                                };
                                startVirtual(work, name + i).join();
                            }
                        } catch (InterruptedException | ReflectiveOperationException e) {
                            say("vchurn failed: " + e);
                        }
                    },
                    "churner-" + s);
            CHURNERS.add(churner);
            churner.start();
        }
        say("vchurning " + streams);
    }

    private static void virtualChurned(long before) throws InterruptedException {
        churning = false;
        for (Thread churner : CHURNERS) {
            churner.join();
        }
        for (int s = 0; s < CHURN_STARTS.size(); s++) {
            List<Long> starts = CHURN_STARTS.get(s);
            synchronized (starts) {
                long early = starts.stream().filter(t -> t < before).count();
                say("vchurned " + s + " " + early + " " + starts.size());
            }
        }
        CHURNERS.clear();
        CHURN_STARTS.clear();
        say("vchurned");
    }

    /**
     * How many {@link #compute} iterations take one millisecond of this thread's CPU time: the least of a few tries,
     * in CPU time rather than wall time, so that a busy machine that delays the threads does not shorten their work.
     */
    static long iterationsPerCpuMilli() {
        java.lang.management.ThreadMXBean mx = java.lang.management.ManagementFactory.getThreadMXBean();
        // compiled first: timed while interpreted, the loop would be calibrated several times too short
        long warm = mx.getCurrentThreadCpuTime();
        while (mx.getCurrentThreadCpuTime() - warm < 300_000_000L) {
            compute(1 << 16);
        }
        long iterations = 1 << 20;
        long best = Long.MAX_VALUE;
        for (int i = 0; i < 5; i++) {
            long before = mx.getCurrentThreadCpuTime();
            compute(iterations);
            best = Math.min(best, mx.getCurrentThreadCpuTime() - before);
        }
        return Math.max(1, iterations * 1_000_000L / Math.max(1, best));
    }

    private static volatile long sink;

    static void compute(long iterations) {
        long x = sink;
        for (long i = 0; i < iterations; i++) {
            x = x * 6364136223846793005L + 1442695040888963407L;
        }
        sink = x;
    }

    private static void churn(int threads, int pages, String prefixes) throws InterruptedException {
        String[] prefix = prefixes.split(",");
        Semaphore running = new Semaphore(2);
        for (int i = 0; i < threads; i++) {
            running.acquire();
            new Thread(
                            () -> {
                                try {
                                    PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
                                } finally {
                                    running.release();
                                }
                            },
                            prefix[i % prefix.length] + "-" + i)
                    .start();
        }
        running.acquire(2);
        say("churned " + threads);
    }

    /**
     * Fills the heap, and fills again what the collector frees, until {@code millis} have passed: every allocation of
     * every thread meanwhile may fail. What main allocates itself fails quietly here; the heap is let go after.
     */
    private static void fullHeap(long millis) {
        String done = "heap let go"; // made before the heap is full
        long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(millis);
        Object[] hog = new Object[1 << 20];
        int filled = 0;
        try {
            while (filled < hog.length) {
                hog[filled++] = new long[64];
            }
        } catch (OutOfMemoryError full) {
            // full: held below
        }
        while (System.nanoTime() < end) {
            try {
                if (filled < hog.length) {
                    hog[filled++] = new long[2];
                }
            } catch (OutOfMemoryError stillFull) {
                // as meant
            }
            try {
                Thread.sleep(2);
            } catch (InterruptedException | OutOfMemoryError e) {
                // on until the end
            }
        }
        hog = null;
        System.gc();
        say(done);
    }

    /** A churn that lasts as long as the test needs it: threads start and end until finish. */
    private static void churning(String prefix) {
        start(
                () -> {
                    Semaphore running = new Semaphore(2);
                    try {
                        for (int i = 0; FINISH.getCount() > 0; i++) {
                            running.acquire();
                            new Thread(
                                            () -> {
                                                try {
                                                    PageToucher.touch(PageToucher.PAGE_SIZE);
                                                } finally {
                                                    running.release();
                                                }
                                            },
                                            prefix + "-" + i)
                                    .start();
                        }
                        running.acquire(2);
                    } catch (InterruptedException e) {
                        Thread.currentThread().interrupt();
                    }
                },
                "churner");
        say("churning");
    }

    /** A thread that lives across several of the agent's intervals and ends on its own. */
    private static void paced(String name, int pages, int rounds, boolean stay) {
        Runnable work = () -> {
            try {
                for (int i = 0; i < rounds; i++) {
                    PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
                    Thread.sleep(30);
                }
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
            say("paced " + name + " " + tid());
            if (stay) {
                awaitFinish();
            }
        };
        if (stay) {
            start(work, name); // finish joins it
        } else {
            new Thread(work, name).start();
        }
    }

    private static void virtualPark(int threads, String prefix) throws Exception {
        CountDownLatch mounted = new CountDownLatch(threads);
        for (int i = 0; i < threads; i++) {
            startVirtual(
                    () -> {
                        mounted.countDown();
                        awaitFinish();
                    },
                    prefix + "-" + i);
        }
        mounted.await(60, TimeUnit.SECONDS); // the test's own wait fails on fewer
        say("vparked " + (threads - mounted.getCount()));
    }

    private static void park(int threads, String prefix) {
        for (int i = 0; i < threads; i++) {
            Thread thread = new Thread(null, AgentTestApp::awaitFinish, prefix + "-" + i, PARKED_STACK_BYTES);
            synchronized (THREADS) {
                THREADS.add(thread);
            }
            thread.start();
        }
        say("parked " + threads);
    }

    /** Takes every descriptor left, as open does, silently: a descriptor freed meanwhile (by any thread) is taken. */
    private static void fill() {
        try {
            while (true) {
                FILES.add(FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.READ));
            }
        } catch (IOException e) {
            // none left
        }
    }

    private static void open(int files) {
        int opened = 0;
        try {
            for (; opened < files; opened++) {
                FILES.add(FileChannel.open(Paths.get("/dev/null"), StandardOpenOption.READ));
            }
            say("opened " + opened + " of " + files);
        } catch (IOException e) {
            say("opened " + opened + " of " + files + ": " + e);
        }
    }

    private static void awaitFinish() {
        try {
            FINISH.await();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    static synchronized void say(String line) {
        System.out.println(line);
        System.out.flush();
    }

    static String tid() {
        try {
            return Files.readSymbolicLink(Paths.get("/proc/thread-self"))
                    .getFileName()
                    .toString();
        } catch (IOException e) {
            throw new IllegalStateException(e);
        }
    }

    /**
     * A thread equal to every other of its role, with the hash code of its role, as an application's configuration
     * object may be: it says it runs, and waits for "end" with its name, or for "finish".
     */
    static final class EqualByRole extends Thread {
        private static final Map<String, EqualByRole> BY_NAME = new ConcurrentHashMap<>();
        private final String role;
        private final CountDownLatch end = new CountDownLatch(1);

        EqualByRole(String name, String role) {
            super(name);
            this.role = role;
            BY_NAME.put(name, this);
        }

        static Thread end(String name) {
            EqualByRole thread = BY_NAME.remove(name);
            thread.end.countDown();
            return thread;
        }

        static void endAll() {
            BY_NAME.values().forEach(thread -> thread.end.countDown());
        }

        @Override
        public void run() {
            say("touched " + getName() + " " + tid());
            try {
                end.await();
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }

        @Override
        public boolean equals(Object other) {
            return other instanceof EqualByRole thread && thread.role.equals(role);
        }

        @Override
        public int hashCode() {
            return role.hashCode();
        }
    }

    /** Touches its pages, says so, and waits for the test's "finish". */
    static class Toucher implements Runnable {
        private final int pages;

        Toucher(int pages) {
            this.pages = pages;
        }

        @Override
        public void run() {
            if (pages > 0) { // touching opens a file: a thread of no pages runs when no descriptor is left
                PageToucher.touch((long) pages * PageToucher.PAGE_SIZE);
            }
            say("touched " + Thread.currentThread().getName() + " " + tid());
            awaitFinish();
        }
    }
}
