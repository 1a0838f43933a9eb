package io.perfpin.cli;

import io.perfpin.jvm.JavaProcess;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;

/** This user's JVMs, like {@code jps}, and whether the perfpin agent is active in each. */
@Command(
        name = "list",
        mixinStandardHelpOptions = true,
        description = {
            "List this user's JVMs (processes that map libjvm.so): pid, main class, and whether the"
                    + " perfpin agent is active in it (a stats file, not closed, with a recent heartbeat)."
        })
final class ListCommand implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
        long self = ProcessHandle.current().pid();
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("pid", "main", "agent"));
        for (JavaProcess jvm : JavaProcess.ofCurrentUser()) {
            if (jvm.pid() != self) {
                rows.add(List.of(
                        Long.toString(jvm.pid()),
                        jvm.mainClass(),
                        AgentState.of(jvm.pid()).toString()));
            }
        }
        if (rows.size() == 1) {
            System.out.println("no JVM runs as this user");
            return ExitCode.OK;
        }
        ReportTable.align(rows, c -> c > 0).forEach(System.out::println);
        return ExitCode.OK;
    }
}
