package io.perfpin.agent.impl;

import io.perfpin.registry.NoticeSink;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.TerminalText;
import io.perfpin.stats.AgentNotice;

import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The agent's only voice: each distinct notice once, as a {@code [perfpin]} line on the application's stderr
 * (its control characters escaped: messages quote options and thread names the agent did not write), and to the
 * viewers of the stats file while an agent runs. With the option {@code quiet}, which perfpin's CLI passes because
 * it shows the notices in its own output, a notice that reaches viewers stays off the application's stderr.
 */
final class AgentLog {
    private static final Set<String> SAID = ConcurrentHashMap.newKeySet();
    private static volatile ThreadRegistry registry;
    private static volatile boolean quiet;

    /** What the running agent's registry says, and what it could not publish. */
    static final NoticeSink REGISTRY = new NoticeSink() {
        @Override
        public void said(AgentNotice notice) {
            if (SAID.add(notice.text())) {
                print(notice);
            }
        }

        @Override
        public void unpublished(AgentNotice notice) {
            if (quiet) {
                write(notice); // kept back for viewers who will now never see it
            }
        }
    };

    private AgentLog() {
    }

    static void info(String message) {
        say(AgentNotice.info(message));
    }

    static void refused(String message) {
        say(AgentNotice.refused(message));
    }

    /** Each start or detach request says its notices afresh, as a viewer of a new stats file reads them afresh. */
    static void newRequest() {
        SAID.clear();
    }

    /** From now on notices go to this agent's viewers too; quiet keeps those off stderr. Null: no agent runs. */
    static void publishTo(ThreadRegistry running, boolean quietly) {
        registry = running;
        quiet = running != null && quietly;
    }

    static void say(AgentNotice notice) {
        if (SAID.add(notice.text())) {
            ThreadRegistry running = registry;
            if (running != null) {
                running.post(notice);
            }
            print(notice);
        }
    }

    private static void print(AgentNotice notice) {
        ThreadRegistry running = registry;
        if (!quiet || running == null || !running.publishesNotices()) {
            write(notice);
        }
    }

    private static void write(AgentNotice notice) {
        System.err.println("[perfpin] " + TerminalText.escape(notice.text()));
    }
}
