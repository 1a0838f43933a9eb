package io.perfpin.cli;

import io.perfpin.jvm.AgentStatsFile;
import io.perfpin.stats.OptionsText;
import io.perfpin.stats.StatsClosing;
import io.perfpin.stats.StatsFileReader;
import java.io.IOException;
import java.nio.file.NoSuchFileException;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

/**
 * Whether the perfpin agent is active in a JVM, as its stats file says: the file exists, is not closed, and
 * its sampler's heartbeat is recent, that is younger than {@link #STALE_INTERVALS} intervals and at least
 * {@link #STALE_FLOOR_MILLIS} (a sampler is a Java thread: a long GC pause holds it too).
 *
 * @param detail     why not, or how often it samples
 * @param unreadable why the stats file cannot be read (not there, damaged, or still being created); else null
 * @param options    the options an active agent was started with; null when not active
 */
record AgentState(boolean active, String detail, IOException unreadable, OptionsText options) {
    static final int STALE_INTERVALS = 5;
    static final long STALE_FLOOR_MILLIS = 3_000;

    static AgentState of(long pid) {
        try (StatsFileReader reader = AgentStatsFile.open(pid)) {
            return of(pid, reader);
        } catch (IOException e) {
            return unread(e);
        }
    }

    /**
     * As {@link #of}, for a JVM whose agent says it runs, and may have started a moment ago: its stats file is waited
     * for as {@link AgentStatsFile#openOnceMade} says, as long as {@code grace}.
     */
    static AgentState ofRunning(long pid, Duration grace) throws InterruptedException {
        try (StatsFileReader reader = AgentStatsFile.openOnceMade(pid, grace)) {
            return of(pid, reader);
        } catch (IOException e) {
            return unread(e);
        }
    }

    private static AgentState of(long pid, StatsFileReader reader) throws IOException {
        StatsClosing closing = reader.closing();
        if (closing != StatsClosing.OPEN) {
            return new AgentState(false, "closed: " + LiveEnding.of(closing).message(pid), null, null);
        }
        long intervalMillis = TimeUnit.NANOSECONDS.toMillis(reader.intervalNanos());
        // No heartbeat yet: the sampler has not ticked since the file was made.
        long beat = reader.heartbeatEpochMillis() != 0 ? reader.heartbeatEpochMillis() : reader.startEpochMillis();
        long age = System.currentTimeMillis() - beat;
        if (age > Math.max(STALE_INTERVALS * intervalMillis, STALE_FLOOR_MILLIS)) {
            return new AgentState(false, "stale: no heartbeat for " + age / 1000 + " s", null, null);
        }
        return new AgentState(true, "every " + intervalMillis + " ms", null, reader.options());
    }

    private static AgentState unread(IOException e) {
        return new AgentState(false, e instanceof NoSuchFileException ? "" : e.getMessage(), e, null);
    }

    @Override
    public String toString() {
        return (active ? "yes" : "no") + (detail.isEmpty() ? "" : " (" + detail + ")");
    }
}
