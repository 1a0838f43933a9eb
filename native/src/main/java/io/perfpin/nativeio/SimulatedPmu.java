package io.perfpin.nativeio;

import java.io.IOException;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.Field;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Map;

/**
 * A PMU for tests on machines that have none: every machine this project runs on answers hardware events with
 * ENOENT, so without it nothing above the system calls would ever see a cycle. Switched on only by the system
 * property {@value #PROPERTY} ({@link Backends}), never by an option, and said on stderr when it is.
 *
 * <p>It sits between perfpin and a real backend. Software, tracepoint and breakpoint events go to the kernel
 * untouched. A hardware event ({@code PERF_TYPE_HARDWARE}, {@code HW_CACHE}, {@code RAW}, which is also the type of
 * the model's sysfs {@code cpu} PMU, {@link PmuModel#cpuPmuType()}, as on x86) is opened on the kernel
 * as the same thread's task-clock, with the caller's attr otherwise unchanged: the descriptor, its group, its id,
 * enable, disable, reset and close are all the kernel's. What a read returns is rewritten: a hardware event counts
 * its rate ({@link PmuModel}) times the nanoseconds the thread really ran, so counts follow the thread's work.
 *
 * <p>Counters are scarce as on the real core: a group that needs more than the model has is refused with
 * EINVAL when its event is opened (x86 validate_group); groups of one thread that together need more are
 * rotated as the kernel's timer rotates flexible groups, the first group moved to the end each tick and groups
 * put on in order until one does not fit. A group runs for the share of rotations that put it on: its
 * {@code time_running} grows by that share of {@code time_enabled}, and its counts, software members too, by that
 * share of what they counted, so that scaling by enabled / running gives back the whole count, as on hardware.
 *
 * <p>Reads follow read(2) of linux/perf_event.h for every {@code read_format}: with or without
 * {@code PERF_FORMAT_GROUP}, {@code TOTAL_TIME_ENABLED}, {@code TOTAL_TIME_RUNNING}, {@code ID} and {@code LOST};
 * a buffer too short for the format is ENOSPC. The kernel is read with both times and the ids always, so running
 * can be derived even where the caller did not ask for it, and a member closed behind the simulation's back is seen
 * gone from its group as the kernel sees it; every event opened here, software ones too, is read in the caller's
 * format. Self-reads through the mapped page are not offered ({@link #mmapPerfPage} answers 0), so
 * {@link #selfRead} reads.
 *
 * <p>Memory at the caller's addresses (the attr, the read buffer) is reached with {@code sun.misc.Unsafe}: the
 * backends take addresses, and only this test-only class needs to read or write through one from Java.
 */
final class SimulatedPmu implements Syscalls {
    public static final String PROPERTY = "perfpin.simulated-pmu";
    /** A thread's instructions per cycle for every thread, instead of one drawn from its name. */
    public static final String IPC_PROPERTY = "perfpin.simulated-pmu.ipc";
    /** Misses per kilo-instruction of every miss event (and raw event), instead of rates drawn from the name. */
    public static final String MPKI_PROPERTY = "perfpin.simulated-pmu.mpki";

    /** PERF_COUNT_SW_TASK_CLOCK. */
    private static final long TASK_CLOCK = 1;

    private static final long TIMES = PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED | PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING;
    private static final long FORMAT_LOST = 1L << 4;
    /**
     * What the kernel is asked for besides the caller's read_format: both times, so that running can be derived,
     * and each event's id, so that a group read tells which members the kernel still has.
     */
    private static final long KERNEL_FORMAT = TIMES | PerfEventAttr.FORMAT_ID;
    /** Enough for a group of 64 members with every read_format field. */
    private static final int SCRATCH_BYTES = 8 * (3 + 3 * 64);

    private final Syscalls kernel;
    private final PmuModel model;
    private final Double ipc;
    private final Double mpki;
    private final NativeBuffer attr;
    private final NativeBuffer scratch;
    /** Every perf event opened through here, by descriptor: a software leader may get hardware members later. */
    private final Map<Integer, Event> events = new HashMap<>();
    /** The groups of each counted thread (or CPU), in the order they were made, as the kernel rotates them. */
    private final Map<Long, List<Group>> contexts = new HashMap<>();

    private SimulatedPmu(Syscalls kernel, PmuModel model, Double ipc, Double mpki) {
        this.kernel = kernel;
        this.model = model;
        this.ipc = ipc;
        this.mpki = mpki;
        this.attr = NativeBuffer.allocate(kernel, PerfEventAttr.SIZE);
        this.scratch = NativeBuffer.allocate(kernel, SCRATCH_BYTES);
    }

    static SimulatedPmu over(Syscalls kernel, PmuModel model, Double ipc, Double mpki) {
        return new SimulatedPmu(kernel, model, ipc, mpki);
    }

    PmuModel model() {
        return model;
    }

    @Override
    public Backend backend() {
        return kernel.backend();
    }

    @Override
    public String simulatedPmu() {
        return model.toString();
    }

    @Override
    public long syscall(long number, long a1, long a2, long a3, long a4, long a5) {
        return kernel.syscall(number, a1, a2, a3, a4, a5);
    }

    @Override
    public int gettid() {
        return kernel.gettid();
    }

    @Override
    public int setAffinity(int tid, long[] mask) {
        return kernel.setAffinity(tid, mask);
    }

    @Override
    public int getAffinity(int tid, long[] mask) {
        return kernel.getAffinity(tid, mask);
    }

    @Override
    public long getcpu() {
        return kernel.getcpu();
    }

    @Override
    public synchronized int perfEventOpen(long attrAddress, int pid, int cpu, int groupFd, long flags) {
        int size = Memory.getInt(attrAddress + PerfEventAttr.SIZE_OFFSET);
        int type = Memory.getInt(attrAddress + PerfEventAttr.TYPE_OFFSET);
        long config = Memory.getLong(attrAddress + PerfEventAttr.CONFIG_OFFSET);
        long readFormat = Memory.getLong(attrAddress + PerfEventAttr.READ_FORMAT_OFFSET);
        boolean hardware = PmuModel.simulates(type);
        if (size < PerfEventAttr.READ_FORMAT_OFFSET + 16 || size > PerfEventAttr.SIZE) {
            return kernel.perfEventOpen(attrAddress, pid, cpu, groupFd, flags); // the kernel says what is wrong
        }
        Event leader = groupFd >= 0 ? events.get(groupFd) : null;
        if (groupFd >= 0 && leader == null) {
            return kernel.perfEventOpen(attrAddress, pid, cpu, groupFd, flags); // not one of ours: EBADF/EINVAL
        }
        if (hardware) {
            int refused = model.refusal(type, config);
            if (refused < 0) {
                return refused;
            }
            if (leader != null && !leader.group.fits(type, config)) {
                return -Errno.EINVAL;
            }
        }
        attr.clear();
        Memory.copy(attrAddress, attr.address(), size);
        ByteBuffer opened = attr.buffer();
        opened.putLong(PerfEventAttr.READ_FORMAT_OFFSET, readFormat | KERNEL_FORMAT);
        if (hardware) {
            opened.putInt(PerfEventAttr.TYPE_OFFSET, PerfEventAttr.TYPE_SOFTWARE);
            opened.putLong(PerfEventAttr.CONFIG_OFFSET, TASK_CLOCK);
        }
        int fd = kernel.perfEventOpen(attr.address(), pid, cpu, groupFd, flags);
        if (fd < 0) {
            return fd;
        }
        int asked = kernel.ioctl(fd, PerfIoctl.ID, scratch.address());
        if (asked < 0) {
            kernel.close(fd);
            return asked;
        }
        Group group = leader != null ? leader.group : new Group(context(pid, cpu));
        double rate = 0;
        if (hardware) {
            String thread = threadName(pid, cpu);
            rate = model.ratePerNanosecond(
                    type, config, thread, ipc != null ? ipc : model.instructionsPerCycle(thread), mpki);
        }
        Event event = new Event(fd, group, hardware, type, config, readFormat, rate);
        event.id = scratch.buffer().getLong(0);
        settle(group.context);
        group.members.add(event);
        if (hardware && !group.counted) {
            group.counted = true;
            contexts.computeIfAbsent(group.context, c -> new ArrayList<>()).add(group);
        }
        rotate(group.context);
        events.put(fd, event);
        return fd;
    }

    @Override
    public synchronized long read(int fd, long address, int length) {
        Event event = events.get(fd);
        if (event == null) {
            return kernel.read(fd, address, length);
        }
        // Software events too: the kernel has them with more than the caller's read_format, so their layout is
        // the caller's, their values the kernel's (share 1 outside a counted group).
        long observed = observe(event);
        if (observed < 0) {
            return observed;
        }
        boolean grouped = (event.readFormat & PerfEventAttr.FORMAT_GROUP) != 0;
        List<Event> reported = grouped ? event.group.members : List.of(event);
        int bytes = size(event.readFormat, reported.size());
        if (length < bytes) {
            return -Errno.ENOSPC;
        }
        long at = address;
        if (grouped) {
            at = put(at, reported.size());
        } else {
            at = put(at, event.value);
        }
        // A group read has the leader's times, through whichever member's descriptor (perf_read_group): a member
        // opened after the leader has been enabled for less time.
        Event timed = grouped ? reported.get(0) : event;
        if ((event.readFormat & PerfEventAttr.FORMAT_TOTAL_TIME_ENABLED) != 0) {
            at = put(at, timed.enabled);
        }
        if ((event.readFormat & PerfEventAttr.FORMAT_TOTAL_TIME_RUNNING) != 0) {
            at = put(at, timed.running);
        }
        for (Event member : reported) {
            if (grouped) {
                at = put(at, member.value);
            }
            if ((event.readFormat & PerfEventAttr.FORMAT_ID) != 0) {
                at = put(at, member.id);
            }
            if ((event.readFormat & FORMAT_LOST) != 0) {
                at = put(at, member.lost);
            }
        }
        return bytes;
    }

    @Override
    public synchronized int ioctl(int fd, long request, long arg) {
        int result = kernel.ioctl(fd, request, arg);
        Event event = events.get(fd);
        if (result == 0 && event != null && request == PerfIoctl.RESET) {
            // The kernel has zeroed the counts and kept the times: so does the simulation.
            for (Event reset : arg == PerfIoctl.FLAG_GROUP ? event.group.members : List.of(event)) {
                reset.value = 0;
                reset.lastCount = 0;
            }
        }
        return result;
    }

    @Override
    public synchronized int close(int fd) {
        Event event = events.get(fd);
        if (event != null) {
            forget(event);
        }
        return kernel.close(fd);
    }

    /**
     * Takes an event out of the simulation as the kernel takes a closed one out of its group: closed through here,
     * or found closed behind the simulation's back ({@link #observe}).
     */
    private void forget(Event event) {
        if (event.detached) {
            return;
        }
        event.detached = true;
        events.remove(event.fd, event);
        Group group = event.group;
        settle(group.context);
        boolean leader = group.members.get(0) == event;
        group.members.remove(event);
        List<Group> groups = contexts.computeIfAbsent(group.context, c -> new ArrayList<>());
        int at = groups.indexOf(group);
        if (leader || group.members.stream().noneMatch(e -> e.hardware)) {
            groups.remove(group);
            group.counted = false;
            group.share = 1;
        }
        if (leader) {
            // Its members go on as groups of their own (perf_group_detach), each where the group stood.
            for (Event member : group.members) {
                Group alone = new Group(group.context);
                alone.members.add(member);
                alone.counted = member.hardware;
                member.group = alone;
                if (alone.counted) {
                    groups.add(at < 0 ? groups.size() : Math.min(at++, groups.size()), alone);
                }
            }
        }
        if (groups.isEmpty()) {
            contexts.remove(group.context);
        }
        rotate(group.context);
    }

    @Override
    public synchronized long mmapPerfPage(int fd) {
        Event event = events.get(fd);
        return event != null && event.group.counted ? 0 : kernel.mmapPerfPage(fd);
    }

    @Override
    public int munmapPerfPage(long pageAddress) {
        return kernel.munmapPerfPage(pageAddress);
    }

    @Override
    public int selfRead(long pageAddress, int fd, long outAddress) {
        if (pageAddress == 0) {
            synchronized (this) {
                Event event = events.get(fd);
                if (event != null && event.group.counted) {
                    long read = read(fd, outAddress, 3 * Long.BYTES);
                    return read < 0 ? (int) read : 0;
                }
            }
        }
        return kernel.selfRead(pageAddress, fd, outAddress);
    }

    @Override
    public long addressOf(ByteBuffer direct) {
        return kernel.addressOf(direct);
    }

    /**
     * Reads the kernel's counts and times of the event (and of its group, where it is read as one) and adds what
     * they grew since the last look, at the group's current share of the counters. A member the kernel no longer
     * reports in the group was closed behind the simulation's back (its descriptor closed by another path): the
     * kernel took it out of the group and reads the group without it, and so does the simulation. Where that
     * member was the leader, the others are groups of their own now, as the kernel makes them.
     */
    private long observe(Event event) {
        long read = kernel.read(event.fd, scratch.address(), SCRATCH_BYTES);
        if (read < 0) {
            return read;
        }
        ByteBuffer in = scratch.buffer();
        boolean grouped = (event.readFormat & PerfEventAttr.FORMAT_GROUP) != 0;
        boolean lost = (event.readFormat & FORMAT_LOST) != 0;
        // The kernel's layout: nr, both times, then value, id (and lost) of each member; or value, both times, id.
        int entries = grouped ? (int) in.getLong(0) : 1;
        long enabled = in.getLong(8);
        long running = in.getLong(16);
        Map<Long, long[]> counts = new HashMap<>();
        int at = grouped ? 24 : 0;
        for (int i = 0; i < entries; i++) {
            long count = in.getLong(at);
            at = grouped ? at + 8 : 24;
            long id = in.getLong(at);
            at += 8;
            counts.put(id, new long[] {count, lost ? in.getLong(at) : 0});
            at += lost ? 8 : 0;
        }
        List<Event> vanished = new ArrayList<>();
        for (Event member : grouped ? event.group.members : List.of(event)) {
            long[] count = counts.get(member.id);
            if (count == null) {
                vanished.add(member);
            } else {
                member.lost = count[1];
                member.advance(count[0], enabled, running);
            }
        }
        for (Event member : vanished) {
            if (closedBehindOurBack(member)) {
                forget(member);
            }
        }
        return read;
    }

    /** Whether the event's descriptor no longer reaches the event: closed, or closed and given to another file. */
    private boolean closedBehindOurBack(Event event) {
        return kernel.ioctl(event.fd, PerfIoctl.ID, scratch.address()) != 0
                || scratch.buffer().getLong(0) != event.id;
    }

    /** Brings every counted group of a context up to now, before its share of the counters changes. */
    private void settle(long context) {
        // Copies: an observation may find a member closed behind the simulation's back, and regroup.
        for (Group group : List.copyOf(contexts.getOrDefault(context, List.of()))) {
            for (Event member : List.copyOf(group.members)) {
                if (observe(member) < 0 || (member.readFormat & PerfEventAttr.FORMAT_GROUP) != 0) {
                    break;
                }
            }
        }
    }

    /** Works out each group's share of the counters over a full turn of the kernel's rotation. */
    private void rotate(long context) {
        List<Group> groups = contexts.getOrDefault(context, List.of());
        int n = groups.size();
        Map<Group, Integer> on = new IdentityHashMap<>();
        for (int turn = 0; turn < n; turn++) {
            Counters free = new Counters(model.generalPurposeCounters());
            for (int i = 0; i < n; i++) {
                Group group = groups.get((turn + i) % n);
                if (!free.take(group.members)) {
                    break; // flexible groups after the first that does not fit wait for the next turn
                }
                on.merge(group, 1, Integer::sum);
            }
        }
        for (Group group : groups) {
            group.share = (double) on.getOrDefault(group, 0) / n;
        }
    }

    private long context(int pid, int cpu) {
        int tid = pid == 0 ? kernel.gettid() : pid;
        return pid == -1 ? -1L - cpu : tid;
    }

    private static String threadName(int pid, int cpu) {
        if (pid == -1) {
            return "cpu" + cpu;
        }
        Path comm = pid == 0 ? Path.of("/proc/thread-self/comm") : Path.of("/proc/" + pid + "/comm");
        try {
            return new String(Files.readAllBytes(comm), StandardCharsets.UTF_8).trim();
        } catch (IOException e) {
            return Integer.toString(pid);
        }
    }

    private static int size(long format, int members) {
        int perMember = 1 + ((format & PerfEventAttr.FORMAT_ID) != 0 ? 1 : 0) + ((format & FORMAT_LOST) != 0 ? 1 : 0);
        int times = Long.bitCount(format & TIMES);
        if ((format & PerfEventAttr.FORMAT_GROUP) != 0) {
            return 8 * (1 + times + members * perMember);
        }
        return 8 * (times + perMember);
    }

    private static long put(long address, long value) {
        Memory.putLong(address, value);
        return address + 8;
    }

    /** One perf event opened through the simulation. */
    private static final class Event {
        final int fd;
        Group group;
        final boolean hardware;
        final int type;
        final long config;
        final long readFormat;
        /** Counts per nanosecond of task-clock: hardware events only. */
        final double rate;

        /** The kernel's id of the event, asked for when it was opened. */
        long id;

        long lost;
        /** Taken out of the simulation: closed through it, or found closed behind its back. */
        boolean detached;
        /** What the caller reads: the simulated count, time enabled (the kernel's), time running. */
        long value;

        long enabled;
        long running;
        /** The kernel's count and time running at the last look. */
        long lastCount;

        long lastRunning;

        Event(int fd, Group group, boolean hardware, int type, long config, long readFormat, double rate) {
            this.fd = fd;
            this.group = group;
            this.hardware = hardware;
            this.type = type;
            this.config = config;
            this.readFormat = readFormat;
            this.rate = rate;
        }

        void advance(long count, long enabledNow, long runningNow) {
            long counted = Math.max(0, count - lastCount);
            // The kernel's task-clock runs whenever it is enabled; a software event outside a counted group keeps
            // the kernel's own times.
            long time = Math.max(0, runningNow - lastRunning);
            double share = group.counted ? group.share : 1;
            value += Math.round((hardware ? counted * rate : counted) * share);
            running += Math.round(time * share);
            enabled = enabledNow;
            lastCount = count;
            lastRunning = runningNow;
        }
    }

    /** A leader and its members, as the kernel schedules them: all on the counters together, or none. */
    private final class Group {
        final long context;
        final List<Event> members = new ArrayList<>();
        /** Whether it holds a hardware event, so needs counters and is rotated. */
        boolean counted;
        /** Its share of the rotation: 1 when every group of its context fits at once. */
        double share = 1;

        Group(long context) {
            this.context = context;
        }

        /** Whether the group with one more event still fits the PMU when it is alone on it. */
        boolean fits(int type, long config) {
            Counters free = new Counters(model.generalPurposeCounters());
            return free.take(members) && free.take(model.fixed(type, config));
        }
    }

    /** The counters of one core that are free during one tick. */
    private final class Counters {
        private int generalPurpose;
        private boolean cycles = true;
        private boolean instructions = true;
        private boolean referenceCycles = true;

        Counters(int generalPurpose) {
            this.generalPurpose = generalPurpose;
        }

        /** Takes counters for every hardware member, or none of them when they do not all fit. */
        boolean take(List<Event> members) {
            int savedGeneral = generalPurpose;
            boolean savedCycles = cycles;
            boolean savedInstructions = instructions;
            boolean savedReference = referenceCycles;
            for (Event member : members) {
                if (member.hardware && !take(model.fixed(member.type, member.config))) {
                    generalPurpose = savedGeneral;
                    cycles = savedCycles;
                    instructions = savedInstructions;
                    referenceCycles = savedReference;
                    return false;
                }
            }
            return true;
        }

        boolean take(PmuModel.Fixed fixed) {
            switch (fixed) {
                case CYCLES -> {
                    if (cycles) {
                        cycles = false;
                        return true;
                    }
                }
                case INSTRUCTIONS -> {
                    if (instructions) {
                        instructions = false;
                        return true;
                    }
                }
                case REF_CYCLES_ONLY -> {
                    if (referenceCycles) {
                        referenceCycles = false;
                        return true;
                    }
                    return false;
                }
                default -> {}
            }
            if (generalPurpose > 0) {
                generalPurpose--;
                return true;
            }
            return false;
        }
    }

    /** Native memory at an address, through sun.misc.Unsafe, looked up once. */
    private static final class Memory {
        private static final Object UNSAFE;
        private static final MethodHandle GET_INT;
        private static final MethodHandle GET_LONG;
        private static final MethodHandle PUT_LONG;
        private static final MethodHandle COPY;

        static {
            try {
                Class<?> type = Class.forName("sun.misc.Unsafe");
                Field field = type.getDeclaredField("theUnsafe");
                field.setAccessible(true);
                UNSAFE = field.get(null);
                MethodHandles.Lookup lookup = MethodHandles.lookup();
                GET_INT = lookup.findVirtual(type, "getInt", MethodType.methodType(int.class, long.class))
                        .bindTo(UNSAFE);
                GET_LONG = lookup.findVirtual(type, "getLong", MethodType.methodType(long.class, long.class))
                        .bindTo(UNSAFE);
                PUT_LONG = lookup.findVirtual(
                                type, "putLong", MethodType.methodType(void.class, long.class, long.class))
                        .bindTo(UNSAFE);
                COPY = lookup.findVirtual(
                                type,
                                "copyMemory",
                                MethodType.methodType(void.class, long.class, long.class, long.class))
                        .bindTo(UNSAFE);
            } catch (ReflectiveOperationException e) {
                throw new ExceptionInInitializerError(e);
            }
        }

        private Memory() {}

        static int getInt(long address) {
            try {
                return (int) GET_INT.invokeExact(address);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static long getLong(long address) {
            try {
                return (long) GET_LONG.invokeExact(address);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void putLong(long address, long value) {
            try {
                PUT_LONG.invokeExact(address, value);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }

        static void copy(long from, long to, long bytes) {
            try {
                COPY.invokeExact(from, to, bytes);
            } catch (Throwable e) {
                throw new IllegalStateException(e);
            }
        }
    }
}
