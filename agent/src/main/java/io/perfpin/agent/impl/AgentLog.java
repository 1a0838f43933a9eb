package io.perfpin.agent.impl;

import io.perfpin.report.TerminalText;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's only voice: one {@code [perfpin]} line on the application's stderr per distinct message, its
 * control characters escaped, since messages quote options and thread names that the agent did not write.
 */
final class AgentLog {
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();

    private AgentLog() {
    }

    static void warn(String message) {
        if (SAID.add(message)) {
            System.err.println("[perfpin] " + TerminalText.escape(message));
        }
    }
}
