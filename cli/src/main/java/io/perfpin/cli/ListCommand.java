package io.perfpin.cli;

import io.perfpin.jvm.JavaProcess;
import io.perfpin.report.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** This user's JVMs, like {@code jps}, and whether the perfpin agent is active in each. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "List this user's JVMs (processes that map libjvm.so): pid, main class, and whether the"
                    + " perfpin agent is active in it (a stats file, not closed, with a recent heartbeat). In 120"
                    + " columns unless --wide: a long main class or jar is cut in its middle."
        })
final class ListCommand implements Callable<Integer> {
    /** A main class cut to fit keeps at least this much of itself. */
    private static final int MIN_MAIN_WIDTH = 12;

    @Option(names = "--wide", description = "Show whole main classes and jars, however wide.")
    boolean wide;

    @Override
    public Integer call() throws Exception {
        long self = ProcessHandle.current().pid();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("pid", "main", "agent"));
        for (JavaProcess jvm : JavaProcess.ofCurrentUser()) {
            if (jvm.pid() != self) {
                rows.add(List.of(
                        Long.toString(jvm.pid()),
                        TerminalText.escape(jvm.mainClass()),
                        TerminalText.escape(AgentState.of(jvm.pid()).toString())));
            }
        }
        if (rows.size() == 1) {
            System.out.println("no JVM runs as this user");
            return ExitCode.OK;
        }
        if (!wide) {
            fitMain(rows, ViewOptions.DEFAULT_WIDTH);
        }
        ReportTable.align(rows, c -> c > 0).forEach(System.out::println);
        return ExitCode.OK;
    }

    /**
     * Cuts the main classes in their middle, as tables cut thread names, so that the rows fit {@code width} columns:
     * a jar's path keeps its start and its file name.
     */
    private static void fitMain(List<List<String>> rows, int width) {
        int pid = 0;
        int agent = 0;
        for (List<String> row : rows) {
            pid = Math.max(pid, TerminalText.width(row.get(0)));
            agent = Math.max(agent, TerminalText.width(row.get(2)));
        }
        int room = Math.max(MIN_MAIN_WIDTH, width - pid - agent - 4);
        rows.replaceAll(row -> List.of(row.get(0), TerminalText.fit(row.get(1), room), row.get(2)));
    }
}
