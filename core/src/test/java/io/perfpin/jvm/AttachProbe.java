package io.perfpin.jvm;

/** Dumps JVM {@code args[0]} from a separate process (run as another user) and prints the outcome. */
public final class AttachProbe {
    private AttachProbe() {}

    public static void main(String[] args) {
        try {
            System.out.println(
                    "ok " + ThreadDump.of(Long.parseLong(args[0])).javaThreads().size());
        } catch (AttachException e) {
            System.out.println(e.category() + "\t" + e.getMessage());
        }
    }
}
