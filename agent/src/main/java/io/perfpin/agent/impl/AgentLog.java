package io.perfpin.agent.impl;

import io.perfpin.files.FileErrors;
import io.perfpin.registry.NoticeSink;
import io.perfpin.registry.ThreadRegistry;
import io.perfpin.report.TerminalText;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.SaidOnce;
import java.io.IOException;
import java.nio.file.Path;
import java.time.OffsetDateTime;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * The agent's only voice: each notice once ({@link SaidOnce}), as a {@code [perfpin]} line on the application's
 * stderr (its control characters escaped: messages quote options and thread names the agent did not write), and to
 * the viewers of the stats file while an agent runs. With the option {@code quiet}, which perfpin's CLI passes
 * because it shows the notices in its own output, a notice that reaches viewers stays off the application's stderr.
 *
 * <p>With {@code log=FILE} ({@link AgentLogFile}) every notice said is written there too, with its time, and every
 * failure each time it happens, with its stack trace: what a {@code [perfpin]} line cannot hold.
 */
final class AgentLog {
    /**
     * What was said, made as the first notice comes: premain, which says nothing when all goes well, then loads none
     * of it. Its sink too, which only a running agent's registry asks for.
     */
    private static final class Spoken {
        static final SaidOnce SAID = new SaidOnce();

        /** What the running agent's registry says, and what it could not publish. */
        static final NoticeSink REGISTRY = new NoticeSink() {
            @Override
            public void said(AgentNotice notice) {
                AgentNotice now = SAID.toSay(notice);
                if (now != null) {
                    print(now);
                    logged(now);
                }
                if (now != notice && notice.cause() != null) {
                    logged(notice);
                }
            }

            @Override
            public void again(AgentNotice notice) {
                logged(notice);
            }

            @Override
            public void unpublished(AgentNotice notice) {
                if (quiet) {
                    write(notice); // kept back for viewers who will now never see it
                }
            }
        };
    }

    /** Set as {@link Spoken} is first asked for: until then no request has anything to forget. */
    private static volatile boolean spoken;

    private static volatile ThreadRegistry registry;
    private static volatile boolean quiet;
    /** Null while no log= file is written. */
    private static volatile AgentLogFile log;
    /**
     * 1 once a request's first failure on stderr said where stack traces go: said once, not on every line. An
     * AtomicInteger, as wherever the agent's start meets a flag: AtomicBoolean's first use looks up a VarHandle, a
     * millisecond of a start that the application waits for.
     */
    private static final AtomicInteger TOLD_OF_LOG = new AtomicInteger();

    private AgentLog() {}

    /** What the running agent's registry says, and what it could not publish. */
    static NoticeSink registrySink() {
        spoken = true;
        return Spoken.REGISTRY;
    }

    static void info(String message) {
        say(AgentNotice.info(message));
    }

    static void refused(String message) {
        say(AgentNotice.refused(message));
    }

    /** Each start or detach request says its notices afresh, as a viewer of a new stats file reads them afresh. */
    static void newRequest() {
        if (spoken) {
            Spoken.SAID.forget();
        }
        TOLD_OF_LOG.set(0);
    }

    /** From now on notices go to this agent's viewers too; quiet keeps those off stderr. Null: no agent runs. */
    static void publishTo(ThreadRegistry running, boolean quietly) {
        registry = running;
        quiet = running != null && quietly;
    }

    /**
     * From now on every notice goes to {@code path} too. A file that cannot be created is one refusal, and the agent
     * goes on without it: a log is for diagnosis, never a reason not to count.
     */
    static void logTo(Path path) {
        try {
            log = AgentLogFile.create(path);
        } catch (IOException e) {
            refused("cannot write the log: " + FileErrors.reason(e) + "; counting goes on without it");
        }
    }

    /** Closes the log= file, if any: its descriptor goes back with the agent's others. */
    static void stopLogging() {
        AgentLogFile file = log;
        log = null;
        if (file != null) {
            file.close();
        }
    }

    /** Only to the log= file, for a failure that another line says on stderr (the agent's own start, which failed). */
    static void logOnly(AgentNotice notice) {
        logged(notice);
    }

    static void say(AgentNotice notice) {
        spoken = true;
        AgentNotice now = Spoken.SAID.toSay(notice);
        if (now != null) {
            ThreadRegistry running = registry;
            if (running != null) {
                running.post(now);
            }
            print(now);
            logged(now);
        }
        if (now != notice && notice.cause() != null) {
            logged(notice); // a failure again, or past the bound: its log keeps each one
        }
    }

    private static void print(AgentNotice notice) {
        ThreadRegistry running = registry;
        if (!quiet || running == null || !running.publishesNotices()) {
            write(notice);
        }
    }

    private static void write(AgentNotice notice) {
        String line = "[perfpin] " + TerminalText.escape(notice.text());
        if (notice.cause() != null && TOLD_OF_LOG.getAndSet(1) == 0) {
            AgentLogFile file = log;
            line += file != null
                    ? " (the stack traces of failures: "
                            + TerminalText.escape(file.path().toString()) + ")"
                    : " (the agent option log=FILE keeps the stack traces of failures)";
        }
        System.err.println(line);
    }

    /** To the log= file, when there is one; a file that cannot be written any more is said once, and let go. */
    private static void logged(AgentNotice notice) {
        AgentLogFile file = log;
        if (file == null) {
            return;
        }
        try {
            file.write(notice, OffsetDateTime.now());
        } catch (IOException e) {
            synchronized (AgentLog.class) {
                if (log != file) {
                    return; // another thread said it, or the agent let the file go
                }
                log = null;
            }
            // a refusal, not a failure: no log is left to keep its trace, and its reason is all there is to it
            refused("cannot write the log " + file.path() + ": " + FileErrors.reason(e) + "; counting goes on"
                    + " without it");
        }
    }
}
