package io.perfpin.cli;

import io.perfpin.options.Durations;
import io.perfpin.report.Hint;
import io.perfpin.report.Hints;
import io.perfpin.report.StatsWindows;
import io.perfpin.report.TerminalText;
import io.perfpin.report.ThreadRecord;
import io.perfpin.report.ThreadRecords;
import io.perfpin.report.ThreadReport;
import io.perfpin.stats.AgentNotice;
import io.perfpin.stats.SaidOnce;
import io.perfpin.stats.StatsLayout;
import io.perfpin.stats.StatsSnapshot;
import java.io.IOException;
import java.time.Duration;
import java.time.LocalTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.stream.Collectors;

/**
 * What the live view ({@link LiveView}) shows of a JVM's stats file: each frame, in a terminal redrawn in place,
 * sized to the screen, with the keys' footer, or as plain blocks, CSV rows or JSON lines of {@code "type":"sample"}
 * per thread per window; then, once the view ends, every thread's totals (the final {@code "type":"thread"} records)
 * and the hints. It only renders: the numbers come from core ({@link StatsWindows}).
 */
final class LiveFrames {
    private static final String CLEAR_SCREEN = "\033[H\033[2J";
    /** A frame's time, to the millisecond always: LocalTime's own text drops a fraction of .000. */
    static final DateTimeFormatter CLOCK = DateTimeFormatter.ofPattern("HH:mm:ss.SSS");

    private final String command;
    private final long pid;
    private final ThreadsOption threads;
    private final ViewOptions view;
    private final ReportOutput out;
    /** For run: the JVMs the watched one starts with the agent's options, shown below it; null for top and attach. */
    private final ChildJvms children;
    /** Whether each frame redraws the terminal in place, rather than following the one before. */
    private final boolean redraw;

    private TableLayout layout;
    private boolean paused;
    private StatsSnapshot lastSnapshot;
    private StatsWindows.Frame shownFrame;
    /** Set as the view ends: why threads went uncounted when no thread it shows was counted; else null. */
    private String noneCounted;
    /** Set as the view ends: how many things the agent refused to do that its options asked. */
    private int refusals;
    /** How many of the stats file's notices this view has read: each is looked at once. */
    private int noticesSaid;
    /**
     * What this view said: each of the agent's notices, and each event not counted (as a notice of that kind about
     * the event), once ({@link SaidOnce}, the rule the agent says its own by).
     */
    private final SaidOnce said = new SaidOnce();
    /** Whether a frame showed a thread yet: until then the view waits for them (see {@link #noLiveThread}). */
    private boolean matched;

    LiveFrames(
            String command,
            long pid,
            ThreadsOption threads,
            ViewOptions view,
            ReportOutput out,
            ChildJvms children,
            boolean redraw,
            TableLayout layout) {
        this.command = command;
        this.pid = pid;
        this.threads = threads;
        this.view = view;
        this.out = out;
        this.children = children;
        this.redraw = redraw;
        this.layout = layout;
    }

    /** Said as the view starts when it was asked to show frames more often than the agent samples. */
    void agentSamplesEvery(Duration agent, Duration interval) {
        out.people()
                .println(TerminalText.escape("perfpin " + command + ": the agent samples every "
                        + CountText.seconds(agent.toNanos()) + ": --interval " + Durations.text(interval)
                        + " shows each of"
                        + " its samples once, as it comes"));
    }

    void frame(StatsSnapshot snapshot, StatsWindows.Frame frame) throws IOException {
        lastSnapshot = snapshot;
        shownFrame = frame;
        if (out.format() == ReportFormat.TABLE) {
            show(snapshot, frame);
        } else {
            long now = System.currentTimeMillis();
            out.interval(
                    "",
                    List.of(),
                    rows(frame).stream()
                            .map(r -> new ThreadRecord(ThreadRecords.SAMPLE, now, r))
                            .collect(Collectors.toList()),
                    snapshot.eventNames(),
                    "");
        }
        sayNotices(snapshot);
    }

    /** Key s: the frame shown again, sorted by the column after the one sorted by. */
    void sortByNextColumn() throws IOException {
        if (shownFrame != null) {
            layout = layout.sortedBy(nextColumn());
            show(lastSnapshot, shownFrame);
        }
    }

    /** Key p: paused, or going on; the frame shown again with the footer that says which. */
    void togglePause() throws IOException {
        paused = !paused;
        if (shownFrame != null) {
            show(lastSnapshot, shownFrame);
        }
    }

    /** Whether the view is paused: it then waits for a key, however long, and the window spans the pause. */
    boolean paused() {
        return paused;
    }

    /** The column after the one sorted by, among those shown, then thread. */
    private String nextColumn() {
        List<String> columns =
                new ArrayList<>(layout.columns(events(shownFrame.threads()), metrics(shownFrame.threads())));
        columns.add("thread");
        int at = columns.indexOf(layout.sort());
        return columns.get((at + 1) % columns.size());
    }

    private void show(StatsSnapshot snapshot, StatsWindows.Frame frame) throws IOException {
        List<ThreadReport> rows = rows(frame);
        int threadRows = rows.size() - frame.virtualGroups().size();
        matched |= !rows.isEmpty();
        List<String> notes = new ArrayList<>();
        if (snapshot.threadsNotCounted() > 0) {
            notes.add("threads not counted: " + notCounted(snapshot));
        }
        notes.addAll(notCountedLines(rows, redraw));
        List<String> heading =
                ReportTable.fold(heading(command, "pid " + pid, snapshot, frame, threadRows), layout.width());
        if (redraw) {
            List<String> lines = new ArrayList<>(heading);
            lines.addAll(rows.isEmpty() ? List.of(noLiveThread()) : ReportTable.render(rows, layout));
            lines.addAll(notes);
            if (children != null) {
                lines.addAll(children.frame(layout));
            }
            lines.add(
                    paused
                            ? "paused: p goes on, q quits"
                            : "q quits, s sorts by the next column (now " + layout.sort() + "), p pauses");
            System.out.print(CLEAR_SCREEN);
            lines.forEach(System.out::println);
            System.out.flush();
        } else {
            notes.addAll(0, heading.subList(1, heading.size()));
            out.interval(
                    heading.get(0),
                    notes,
                    rows.stream()
                            .map(r -> new ThreadRecord(ThreadRecords.SAMPLE, 0, r))
                            .collect(Collectors.toList()),
                    snapshot.eventNames(),
                    noLiveThread());
            if (children != null) {
                out.say(children.frame(layout));
            }
        }
    }

    /** The events not counted, with why: in a redrawn screen on one line; in plain blocks each once. */
    private List<String> notCountedLines(List<ThreadReport> rows, boolean oneLine) {
        Map<String, String> notCounted = ReportTable.notCounted(rows);
        if (oneLine) {
            return notCounted.isEmpty()
                    ? List.of()
                    : List.of(TerminalText.escape(
                            "not counted: " + String.join(", ", notCounted.keySet()) + " (why: at the end)"));
        }
        // Without a PMU every hardware event has one reason: said once, after the events it holds for, folded.
        Map<String, List<String>> byReason = new LinkedHashMap<>();
        notCounted.forEach((event, reason) -> {
            if (said.toSay(AgentNotice.notCounted(event, reason)) != null) {
                byReason.computeIfAbsent(reason, r -> new ArrayList<>()).add(event);
            }
        });
        List<String> lines = new ArrayList<>();
        byReason.forEach((reason, events) -> lines.addAll(ReportTable.fold(
                TerminalText.escape("not counted: " + String.join(", ", events) + ": " + reason), layout.width())));
        return lines;
    }

    /** The agent's notices, in this command's output, where the agent's user reads: each once. */
    private void sayNotices(StatsSnapshot snapshot) throws IOException {
        List<AgentNotice> notices = snapshot.notices();
        if (!redraw && notices.size() > noticesSaid) {
            out.say(noticeLines(notices.subList(noticesSaid, notices.size())));
            noticesSaid = notices.size();
        }
    }

    /**
     * As the view ends: every thread's {@code totals} since it was enrolled, as the {@code last} snapshot has them,
     * under a heading that says the {@code ending}, what was not counted, the agent's notices not said yet, and
     * the hints.
     */
    void summary(StatsSnapshot last, List<ThreadReport> allTotals, LiveEnding ending) throws IOException {
        List<ThreadReport> totals = selected(allTotals);
        List<Hint> hints = new ArrayList<>();
        // Over the same window as the counts they cite: each thread's totals since it was enrolled.
        totals.forEach(r -> hints.addAll(Hints.of(r, false, OptionalLong.empty())));
        totals.addAll(StatsWindows.virtualGroups(last)); // selected by the agent (virtual=), not --threads
        List<ThreadReport> rows = new ArrayList<>(totals);
        // Only where counting stopped while threads ran; live threads need no word.
        String running = ending.runningLabel();
        ThreadReport finished = StatsWindows.finishedSum(last, running != null ? running : "running at the end");
        List<String> heading = List.of(TerminalText.escape(
                "perfpin " + command + ": " + ending.message(pid) + ". Totals per thread since it was enrolled:"));
        if (out.format() == ReportFormat.TABLE) {
            if (finished != null) {
                rows.add(finished);
            }
            List<String> lines = new ArrayList<>(heading);
            lines.addAll(
                    rows.isEmpty()
                            ? List.of(TerminalText.escape("(no thread matches " + threads.describe() + ")"))
                            : ReportTable.render(rows, view.layout(0).withTop(0).withRunningLabel(running)));
            // Each event not counted is said once: here, unless a frame said it.
            Map<String, String> notCounted = ReportTable.notCounted(rows);
            notCounted.entrySet().removeIf(e -> said.toSay(AgentNotice.notCounted(e.getKey(), e.getValue())) == null);
            if (!notCounted.isEmpty()) {
                lines.addAll(List.of("", "Not counted:"));
                notCounted.forEach((event, reason) -> lines.add(TerminalText.escape("  " + event + ": " + reason)));
            }
            out.say(lines);
        } else {
            out.people().println(heading.get(0));
            long now = System.currentTimeMillis();
            out.records(
                    totals.stream()
                            .map(r -> new ThreadRecord(ThreadRecords.THREAD, now, r))
                            .collect(Collectors.toList()),
                    last.eventNames(),
                    TableLayout.ALL);
        }
        List<String> after = new ArrayList<>();
        if (last.threadsNotCounted() > 0) {
            after.add("Threads not counted: " + notCounted(last));
            noneCounted = totals.isEmpty() ? "threads not counted: " + notCounted(last) : null;
        }
        after.addAll(noticeLines(last.notices()
                .subList(
                        Math.min(noticesSaid, last.notices().size()),
                        last.notices().size())));
        refusals = (int) last.notices().stream().filter(AgentNotice::refused).count();
        out.say(after);
        out.hints(hints);
    }

    /**
     * After {@link #summary}: when the agent counted none of the threads shown and left some uncounted for want of
     * file descriptors, those threads and why; null otherwise.
     */
    String noneCounted() {
        return noneCounted;
    }

    /** After {@link #summary}: how many things the agent could not do that its options asked (its refusals). */
    int refusals() {
        return refusals;
    }

    /**
     * A frame's first line: the command, the JVM ({@code who}), whose hardware counts a simulated PMU makes when it
     * does (tests only: they are no measurement), its live threads and the window of the counts.
     */
    static String heading(String command, String who, StatsSnapshot snapshot, StatsWindows.Frame frame, int shown) {
        long live = snapshot.threads().stream()
                .filter(s -> s.state() == StatsLayout.STATE_RUNNING)
                .count();
        String window = frame.spanNanos() < 0
                ? "counts since each thread was enrolled"
                : "counts over the last " + CountText.seconds(frame.spanNanos()) + " (" + frame.samples()
                        + " agent sample" + (frame.samples() == 1 ? "" : "s") + ")";
        String pmu = snapshot.pmu() == null ? "" : " (" + snapshot.pmu() + " PMU)";
        return "--- " + LocalTime.now().format(CLOCK) + "  perfpin " + command + "  " + who + pmu + "  live threads: "
                + live
                + (shown < live ? " (" + shown + " shown)" : "") + ", " + window + " ---";
    }

    private static List<String> events(List<ThreadReport> reports) {
        return reports.stream()
                .flatMap(r -> r.counters().keySet().stream())
                .distinct()
                .collect(Collectors.toList());
    }

    private static List<String> metrics(List<ThreadReport> reports) {
        return reports.stream()
                .flatMap(r -> r.metrics().keySet().stream())
                .distinct()
                .collect(Collectors.toList());
    }

    private String noLiveThread() {
        return noLiveThread(threads, matched);
    }

    /**
     * What a frame without rows says: before any frame showed a thread the application has most often not started
     * them yet ({@code matched} false), and after, they have ended.
     */
    static String noLiveThread(ThreadsOption threads, boolean matched) {
        return TerminalText.escape(
                matched
                        ? "(no live thread matches " + threads.describe() + ")"
                        : "(waiting for threads matching " + threads.describe() + ")");
    }

    /**
     * The agent's notices, as this command's output says them, each once; those of kind not-counted are left to the
     * lines that say so with the table, from the stats file's own reasons.
     */
    private List<String> noticeLines(List<AgentNotice> notices) {
        List<String> lines = new ArrayList<>();
        for (AgentNotice notice : notices) {
            AgentNotice now = notice.kind() == AgentNotice.Kind.NOT_COUNTED ? null : said.toSay(notice);
            if (now != null) {
                lines.add((now.refused() ? "agent refused: " : "agent: ") + TerminalText.escape(now.text()));
            }
        }
        return lines;
    }

    /** How many threads the agent could not count, and why, as its stats file says. */
    private static String notCounted(StatsSnapshot snapshot) {
        return snapshot.threadsNotCounted() + ", out of file descriptors (perfpin may hold "
                + snapshot.descriptorBudget() + ": agent option fds=)";
    }

    /** A frame's rows: the threads selected, then the groups of virtual threads, which the agent selected. */
    static List<ThreadReport> rows(StatsWindows.Frame frame, ThreadsOption threads) {
        List<ThreadReport> rows = new ArrayList<>();
        frame.threads().stream().filter(r -> threads.selects(r.name())).forEach(rows::add);
        rows.addAll(frame.virtualGroups());
        return rows;
    }

    private List<ThreadReport> rows(StatsWindows.Frame frame) {
        return rows(frame, threads);
    }

    private List<ThreadReport> selected(List<ThreadReport> reports) {
        return reports.stream().filter(r -> threads.selects(r.name())).collect(Collectors.toList());
    }
}
