package io.perfpin.nativeio;

/**
 * Run in a child JVM by {@link BackendChoiceTest}: chooses a backend as an application would and prints
 * what happened, one {@code key=value} a line.
 */
public final class BackendProbe {
    private BackendProbe() {}

    public static void main(String[] args) {
        try {
            Syscalls syscalls = Backends.syscalls();
            System.out.println("chosen=" + syscalls.backend());
            System.out.println("gettid=" + syscalls.gettid());
        } catch (BackendUnavailableException e) {
            System.out.println("error=" + e.getMessage());
        }
        for (String failure : Backends.failures()) {
            System.out.println("failure=" + failure);
        }
    }
}
