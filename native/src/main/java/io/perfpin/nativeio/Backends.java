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

    private static Syscalls chosen;
    private static final List<String> FAILURES = new ArrayList<>();

    private Backends() {
    }

    /** The process-wide backend, chosen on first use. */
    public static synchronized Syscalls syscalls() {
        if (chosen == null) {
            chosen = choose();
        }
        return chosen;
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
                throw new BackendUnavailableException("-D" + BACKEND_PROPERTY + "=" + forced
                        + " names no backend; allowed: jni, jffi, jna");
            }
            return load(backend);
        }
        for (Backend backend : Backend.values()) {
            try {
                return load(backend);
            } catch (BackendUnavailableException e) {
                FAILURES.add(e.getMessage());
            }
        }
        throw new BackendUnavailableException("no backend could reach the kernel: " + String.join("; ", FAILURES));
    }

    /** Loads one backend, whatever the property says; throws when it cannot run here. */
    public static Syscalls load(Backend backend) {
        try {
            switch (backend) {
                case JNI:
                    return JniSyscalls.load();
                default:
                    throw new BackendUnavailableException(backend + ": not built yet");
            }
        } catch (LinkageError | RuntimeException e) {
            if (e instanceof BackendUnavailableException) {
                throw (BackendUnavailableException) e;
            }
            throw new BackendUnavailableException(backend + ": " + e.getMessage(), e);
        }
    }
}
