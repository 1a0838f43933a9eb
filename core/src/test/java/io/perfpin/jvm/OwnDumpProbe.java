package io.perfpin.jvm;

/** Asks its own JVM, which no one attached to, for its threads; prints the refusal. */
public final class OwnDumpProbe {
    private OwnDumpProbe() {}

    public static void main(String[] args) {
        try {
            ThreadDump.ofThisJvm(ThreadDump.DEFAULT_TIMEOUT);
            System.out.println("dumped");
        } catch (AttachException e) {
            System.out.println("refused: " + e.getMessage());
        }
    }
}
