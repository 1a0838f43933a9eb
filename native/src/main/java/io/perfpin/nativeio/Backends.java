package io.perfpin.nativeio;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/**
 * Chooses how perfpin reaches the kernel: {@code -Dperfpin.backend=jni|jffi|jna} forces one; otherwise
 * the first of {@link Backend#values()} that loads. Why the others did not load is kept for diagnostics.
 */
public final class Backends {
    public static final String BACKEND_PROPERTY = "perfpin.backend";

    /** Set once, under the class's lock; read without it by {@link #simulatedPmu()}, on every record written. */
    private static volatile Syscalls chosen;

    private static final List<String> FAILURES = new ArrayList<>();

    private Backends() {}

    /** The process-wide backend, chosen on first use. */
    public static synchronized Syscalls syscalls() {
        if (chosen == null) {
            chosen = simulatedIfAsked(
                    choose(),
                    System.getProperty(SimulatedPmu.PROPERTY),
                    System.getProperty(SimulatedPmu.IPC_PROPERTY),
                    System.getProperty(SimulatedPmu.MPKI_PROPERTY));
        }
        return chosen;
    }

    /**
     * The simulated PMU's name where one answers this process's hardware events ({@code "simulated skylake"}),
     * or null: the kernel's. Never chooses a backend itself: before one is chosen, the property says which it
     * will be (a recording's first record is written before its first count).
     */
    public static String simulatedPmu() {
        PmuModel model = simulatedPmuModel();
        return model == null ? null : model.toString();
    }

    /**
     * The model of the simulated PMU that answers this process's hardware events, or null: the kernel's. Event
     * names are looked up for it (its libpfm4 PMU, its {@code cpu} PMU), not for this machine's processor, since
     * the simulation counts what that model counts. Like {@link #simulatedPmu()}, never chooses a backend.
     */
    public static PmuModel simulatedPmuModel() {
        Syscalls syscalls = chosen;
        if (syscalls != null) {
            return syscalls instanceof SimulatedPmu simulated ? simulated.model() : null;
        }
        String asked = System.getProperty(SimulatedPmu.PROPERTY);
        return asked == null ? null : PmuModel.named(asked);
    }

    /**
     * What a JVM that counts through {@code syscalls} says once where a simulated PMU answers (the agent as a
     * notice, stat on stderr, the JMH profiler as a note); null where the kernel does.
     */
    public static String simulatedPmuNotice(Syscalls syscalls) {
        String pmu = syscalls.simulatedPmu();
        return pmu == null
                ? null
                : pmu.replace("simulated ", "simulated PMU ") + " (-D" + SimulatedPmu.PROPERTY
                        + "): hardware events are counted from each thread's task-clock, for tests; none is a"
                        + " measurement";
    }

    /** Why backends tried before the chosen one (or all of them) failed to load. */
    public static synchronized List<String> failures() {
        return Collections.unmodifiableList(new ArrayList<>(FAILURES));
    }

    private static Syscalls choose() {
        String forced = System.getProperty(BACKEND_PROPERTY);
        if (forced != null) {
            Backend backend = Backend.parse(forced);
            if (backend == null) {
                throw new BackendUnavailableException(
                        "-D" + BACKEND_PROPERTY + "=" + forced + " names no backend; allowed: jni, jffi, jna");
            }
            return load(backend);
        }
        // Each choice's own: a choice that failed before (stat's early load, then its own) says its reasons once.
        FAILURES.clear();
        for (Backend backend : Backend.values()) {
            try {
                return load(backend);
            } catch (BackendUnavailableException e) {
                FAILURES.add(e.getMessage());
            }
        }
        throw new BackendUnavailableException("no backend could reach the kernel: " + String.join("; ", FAILURES));
    }

    /**
     * The kernel's backend, or a simulated PMU over it where {@code -Dperfpin.simulated-pmu=MODEL} asks for one
     * (tests only: no option a user types reaches this). Each JVM that counts says so through its own channel
     * ({@link #simulatedPmuNotice}), since every count of a hardware event it gives is made up.
     */
    static Syscalls simulatedIfAsked(Syscalls kernel, String model, String ipc, String mpki) {
        if (model == null) {
            return kernel;
        }
        PmuModel named = PmuModel.named(model);
        if (named == null) {
            throw new BackendUnavailableException("-D" + SimulatedPmu.PROPERTY + "=" + model
                    + " names no simulated PMU; allowed: " + PmuModel.allowed());
        }
        Double perCycle = figure(SimulatedPmu.IPC_PROPERTY, ipc, 100, "an instructions-per-cycle figure");
        Double perKilo = figure(SimulatedPmu.MPKI_PROPERTY, mpki, 1000, "a misses-per-1000-instructions figure");
        return SimulatedPmu.over(kernel, named, perCycle, perKilo);
    }

    /** A property's number, above 0 and below {@code limit}; null when the property is not set. */
    private static Double figure(String property, String value, double limit, String what) {
        if (value == null) {
            return null;
        }
        double number;
        try {
            number = Double.parseDouble(value);
        } catch (NumberFormatException e) {
            number = Double.NaN;
        }
        if (!(number > 0 && number < limit)) {
            throw new BackendUnavailableException("-D" + property + "=" + value + " is not " + what
                    + "; allowed: a number above 0 and below " + (int) limit);
        }
        return number;
    }

    /** Loads one backend, whatever the property says; throws when it cannot run here, saying why. */
    public static Syscalls load(Backend backend) {
        try {
            return switch (backend) {
                case JNI -> JniSyscalls.load();
                case JFFI -> {
                    available(backend, "com.kenai.jffi.Foreign");
                    yield JffiSyscalls.load();
                }
                case JNA -> {
                    available(backend, "com.sun.jna.Native");
                    yield JnaSyscalls.load();
                }
                default -> throw new IllegalArgumentException(backend.name());
            };
        } catch (LinkageError | RuntimeException e) {
            throw new BackendUnavailableException(backend + ": " + reason(backend, e), e);
        }
    }

    /** Asked before the backend's class, which refers to the library, is used ({@link OptionalLibrary}). */
    private static void available(Backend backend, String className) {
        String why = OptionalLibrary.unavailable(className);
        if (why != null) {
            throw new BackendUnavailableException(
                    why.startsWith("not on the class path") ? why + ": add " + requiredLibrary(backend) : why);
        }
    }

    /**
     * One line. JNI's loader and perfpin's own checks already say what is wrong and what to do. A missing
     * class means the optional library is not on the class path, so name the artifacts to add. ("Could not initialize
     * class" is not that case: the library is there but failed to load.)
     * jffi puts a whole stack trace into its messages; only their first line is kept.
     */
    private static String reason(Backend backend, Throwable e) {
        String message = e.getMessage() != null ? e.getMessage() : e.toString();
        if (backend == Backend.JNI || e instanceof BackendUnavailableException) {
            return message;
        }
        if (e instanceof NoClassDefFoundError && !message.startsWith("Could not initialize")) {
            return "not on the class path (no class " + message.replace('/', '.') + "): add "
                    + requiredLibrary(backend);
        }
        int newline = message.indexOf('\n');
        return (newline < 0 ? message : message.substring(0, newline)).trim() + " (it needs " + requiredLibrary(backend)
                + " for this platform)";
    }

    private static String requiredLibrary(Backend backend) {
        return switch (backend) {
            case JFFI -> "com.github.jnr:jffi and com.github.jnr:jffi:native";
            case JNA -> "net.java.dev.jna:jna";
            default -> backend.name();
        };
    }
}
