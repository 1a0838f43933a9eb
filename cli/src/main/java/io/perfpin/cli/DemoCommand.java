package io.perfpin.cli;

import io.perfpin.apps.PageToucher;
import io.perfpin.apps.Sleeper;
import io.perfpin.apps.Spinner;
import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.CounterSnapshot;
import io.perfpin.cpu.CpuAssignment;
import io.perfpin.cpu.CpuReservations;
import io.perfpin.cpu.CpuTopology;
import io.perfpin.cpu.Placement;
import io.perfpin.cpu.ThreadAffinity;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.report.ThreadReport;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.CountDownLatch;

/**
 * A smoke run of perfpin's core, in this JVM: a few threads with known work (touch 64 MiB, sleep 50 times,
 * spin pinned to a whole core, spin unpinned), each counted by TID, then the table. The numbers can be
 * checked against the work: about 16384 page faults, at least 50 context switches, no migrations for the
 * pinned thread.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
        description = "Count a few threads with known work and show what perfpin measured.")
final class DemoCommand implements Callable<Integer> {
    @Option(names = "--events", paramLabel = "LIST", defaultValue = "sched,ipc",
            description = "Events and presets, comma-separated (default: ${DEFAULT-VALUE}).")
    String events;

    @Override
    public Integer call() throws Exception {
        EventList eventList = EventList.parse(events, new EventParser());
        Syscalls syscalls = Backends.syscalls();
        ThreadAffinity affinity = new ThreadAffinity(syscalls);
        CpuTopology topology = CpuTopology.live();
        System.out.println("perfpin demo: " + topology.allowed().size() + " CPUs allowed (" + topology.allowed()
                + "), backend " + syscalls.backend() + ", events " + events);

        List<Worker> workers = List.of(
                new Worker("page-toucher", null, () -> PageToucher.touch(64 << 20)),
                new Worker("sleeper", null, () -> Sleeper.sleep(50, 1)),
                new Worker("pinned-spinner", Placement.CORE, () -> Spinner.spin(300_000_000L)),
                new Worker("spinner", null, () -> Spinner.spin(300_000_000L)));
        CpuReservations reservations = CpuReservations.openDefault();
        for (Worker w : workers) {
            w.start(syscalls, affinity, topology, reservations);
        }
        List<CounterGroup> groups = new ArrayList<>();
        for (Worker w : workers) {
            groups.add(CounterGroup.open(syscalls, w.tid, eventList.events()));
        }
        long start = System.nanoTime();
        workers.forEach(w -> w.go.countDown());
        for (Worker w : workers) {
            w.thread.join();
        }
        long wall = System.nanoTime() - start;
        List<ThreadReport> reports = new ArrayList<>();
        for (int i = 0; i < workers.size(); i++) {
            Worker w = workers.get(i);
            CounterGroup group = groups.get(i);
            CounterSnapshot snapshot = group.newSnapshot();
            group.read(snapshot);
            group.close();
            reports.add(ThreadReport.of(w.name, w.tid, w.thread.getId(), w.cpus, eventList, snapshot,
                    group.unsupported(), wall));
            if (w.failure != null) {
                System.out.println(w.name + ": " + w.failure);
            }
        }
        ReportTable.render(reports).forEach(System.out::println);
        return ExitCode.OK;
    }

    private interface Work {
        void run() throws Exception;
    }

    /** A demo thread: pins itself when asked, publishes its TID, waits until counted, then works. */
    private static final class Worker {
        final String name;
        final Placement placement;
        final Work work;
        final CountDownLatch started = new CountDownLatch(1);
        final CountDownLatch go = new CountDownLatch(1);
        Thread thread;
        volatile int tid;
        volatile String cpus = "";
        volatile String failure;

        Worker(String name, Placement placement, Work work) {
            this.name = name;
            this.placement = placement;
            this.work = work;
        }

        void start(Syscalls syscalls, ThreadAffinity affinity, CpuTopology topology, CpuReservations reservations)
                throws InterruptedException {
            thread = new Thread(() -> {
                tid = syscalls.gettid();
                CpuAssignment assignment = null;
                try {
                    if (placement != null) {
                        assignment = placement.assign(topology, reservations, tid, name);
                        affinity.set(tid, assignment.cpus());
                    }
                } catch (Exception e) {
                    failure = "not pinned: " + e.getMessage();
                }
                cpus = affinity.get(tid).toString();
                started.countDown();
                try {
                    go.await();
                    work.run();
                } catch (Exception e) {
                    failure = e.toString();
                } finally {
                    if (assignment != null) {
                        assignment.close();
                    }
                }
            }, name);
            thread.start();
            started.await();
        }
    }
}
