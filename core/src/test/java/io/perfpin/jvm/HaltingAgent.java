package io.perfpin.jvm;

import java.io.IOException;
import java.lang.instrument.Instrumentation;

/**
 * A JVM that exits while an attach talks to it: loaded as an agent, it halts the JVM before the load is answered.
 * Its main waits for its input to close, saying {@code ready} first.
 */
public final class HaltingAgent {
    private HaltingAgent() {}

    public static void agentmain(String options, Instrumentation instrumentation) {
        Runtime.getRuntime().halt(0);
    }

    public static void main(String[] args) throws IOException {
        System.out.println("ready");
        while (System.in.read() >= 0) {
            // until the test closes its input
        }
    }
}
