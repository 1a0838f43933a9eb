package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import io.perfpin.jvm.AgentJar;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;

/** Where java stands in command lines as people write them, and which ones are refused, and why. */
class LaunchCommandTest {

    /** A command line, split on single spaces, and where its java word stands. */
    private record Found(String command, int java) {}

    /** A command line, split on the character {@code |}, and the reason it is refused. */
    private record Refused(String command, String why) {}

    /**
     * A JVM that may lack java.instrument, or has a system class loader of its own, gets the agent by -javaagent;
     * numactl's own -m, before java, is not java's.
     */
    @Test
    void modulesAndOwnSystemClassLoadersNeedTheJavaagent() {
        for (String command : List.of(
                "java -m app/app.Main",
                "java --module app/app.Main",
                "java --module=app/app.Main",
                "java --limit-modules java.base -cp app.jar Main",
                "java --limit-modules=java.base Main",
                "sudo -u me java -Djava.system.class.loader=app.Loader -cp app.jar Main",
                "java -Djdk.module.main=app -cp app.jar Main")) {
            assertTrue(
                    AgentJar.needsJavaagent(
                            LaunchCommand.of(List.of(command.split(" "))).afterJava()),
                    command);
        }
        for (String command :
                List.of("java -cp app.jar Main", "numactl -N 0 -m 0 java -jar app.jar", "java -jar m.jar --modules")) {
            assertFalse(
                    AgentJar.needsJavaagent(
                            LaunchCommand.of(List.of(command.split(" "))).afterJava()),
                    command);
        }
    }

    @Test
    void javaIsFoundBehindEveryWrapperAndItsOptions() {
        List<Found> table = List.of(
                new Found("java -cp app.jar Main", 0),
                new Found("/usr/lib/jvm/temurin-25-jdk-amd64/bin/java -jar app.jar", 0),
                new Found("./jdk/bin/java -Xmx1g Main", 0),
                new Found("java -cp taskset:env Main taskset", 0),
                new Found("taskset -c 1 java -cp app.jar Main", 3),
                new Found("taskset -c 0-1,3 java Main", 3),
                new Found("taskset 0x3 java Main", 2),
                new Found("taskset 3 /opt/jdk/bin/java Main", 2),
                new Found("taskset -a -c 1 java Main", 4),
                new Found("taskset -ac 1 java Main", 3),
                new Found("taskset --cpu-list 1 java Main", 3),
                new Found("taskset --cpu 1 java Main", 3),
                new Found("taskset -- 0x3 java Main", 3),
                new Found("/usr/bin/taskset -c 1 java Main", 3),
                new Found("numactl --cpunodebind=0 --membind=0 java Main", 3),
                new Found("numactl -N 0 -m 0 java Main", 5),
                new Found("numactl -N0 -m0 java Main", 3),
                new Found("numactl --physcpubind 2,3 --localalloc java Main", 4),
                new Found("numactl -C 2 -l java Main", 4),
                new Found("numactl --interleave=all java Main", 2),
                new Found("numactl -i all java Main", 3),
                new Found("numactl --preferred 1 java Main", 3),
                new Found("numactl -p 1 -a java Main", 4),
                new Found("numactl -aN 0 java Main", 3),
                new Found("numactl --phys=0 java Main", 2),
                new Found("env FOO=bar java Main", 2),
                new Found("env -i PATH=/usr/bin HOME=/tmp java Main", 4),
                new Found("env - FOO=bar java Main", 3),
                new Found("env -u HOME -C /tmp java Main", 5),
                new Found("env -uHOME java Main", 2),
                new Found("env --unset=HOME --chdir /tmp FOO=1 BAR=2 java Main", 6),
                new Found("env -- FOO=bar java Main", 3),
                new Found("env --block-signal=PIPE --ignore-signal java Main", 3),
                new Found("nice java Main", 1),
                new Found("nice -n 5 java Main", 3),
                new Found("nice -n5 java Main", 2),
                new Found("nice -n -5 java Main", 3),
                new Found("nice --adjustment=5 java Main", 2),
                new Found("nice --adjustment 5 java Main", 3),
                new Found("nice -5 java Main", 2),
                new Found("nice --10 java Main", 2),
                new Found("chrt -f 99 java Main", 3),
                new Found("chrt --rr 10 java Main", 3),
                new Found("chrt 10 java Main", 2),
                new Found("chrt -o 0 java Main", 3),
                new Found("chrt --idle java Main", 2),
                new Found("chrt -R -f 50 java Main", 4),
                new Found("chrt -d -T 1000000 -P 10000000 -D 5000000 0 java Main", 9),
                new Found("ionice -c 3 java Main", 3),
                new Found("ionice -c2 -n7 java Main", 3),
                new Found("ionice --class best-effort --classdata 0 -t java Main", 6),
                new Found("setpriv --nnp java Main", 2),
                new Found("setpriv --reuid=1000 --regid 1000 --init-groups java Main", 5),
                new Found("sudo java Main", 1),
                new Found("sudo -u app java Main", 3),
                new Found("sudo -E -u app JAVA_HOME=/opt/jdk java Main", 5),
                new Found("sudo --user=app -- java Main", 3),
                new Found("sudo -nu app java Main", 3),
                new Found("sudo -i java Main", 2),
                new Found("stdbuf -oL -eL java Main", 3),
                new Found("stdbuf -o 0 java Main", 3),
                new Found("stdbuf --output=L java Main", 2),
                new Found("time java Main", 1),
                new Found("/usr/bin/time -v java Main", 2),
                new Found("time -f %e\\t%M -o out.txt -a java Main", 6),
                new Found("nohup java Main", 1),
                new Found("nice -n 5 taskset -c 0 env FOO=bar numactl -l /opt/jdk/bin/java -cp app.jar Main", 10));
        List<String> wrong = new ArrayList<>();
        for (Found row : table) {
            try {
                int java = LaunchCommand.of(List.of(row.command.split(" "))).javaIndex();
                if (java != row.java) {
                    wrong.add(row.command + ": java found at " + java + ", not " + row.java);
                }
            } catch (IllegalArgumentException e) {
                wrong.add(row.command + ": refused: " + e.getMessage());
            }
        }
        if (!wrong.isEmpty()) {
            fail(String.join("\n", wrong));
        }
    }

    @Test
    void commandsThatStartJavaAnyOtherWayAreRefusedSayingWhy() {
        List<Refused> table = List.of(
                new Refused("sh|-c|java -jar app.jar", "'sh' is neither java nor a program that perfpin looks through"),
                new Refused("bash|run.sh", "'bash' is neither java nor a program that perfpin looks through"),
                new Refused("mvn|exec:java", "'mvn' is neither java nor a program that perfpin looks through"),
                new Refused("./gradlew|run", "'./gradlew' is neither java nor a program that perfpin looks through"),
                new Refused("javac|Main.java", "'javac' is neither java nor a program that perfpin looks through"),
                new Refused(
                        "taskset|-c|0|sh|-c|java Main",
                        "'sh' is neither java nor a program that perfpin looks" + " through"),
                new Refused("taskset|-c|0", "'taskset -c 0' is followed by no command"),
                new Refused("env|FOO=bar", "'env FOO=bar' is followed by no command"),
                new Refused("nice|-n", "'nice -n' is followed by no command"),
                new Refused("taskset|-p|0|1234", "with -p, taskset runs no command that perfpin can follow"),
                new Refused("taskset|-pc|0|1234", "with -p, taskset runs no command that perfpin can follow"),
                new Refused("numactl|--show", "with --show, numactl runs no command that perfpin can follow"),
                new Refused("numactl|--hard", "with --hard, numactl runs no command that perfpin can follow"),
                new Refused("env|-S|java -jar app.jar", "with -S, env runs no command that perfpin can follow"),
                new Refused("chrt|-p|1234", "with -p, chrt runs no command that perfpin can follow"),
                new Refused("ionice|-p|1234", "with -p, ionice runs no command that perfpin can follow"),
                new Refused("sudo|-b|java|Main", "with -b, sudo runs no command that perfpin can follow"),
                new Refused("nice|--help", "with --help, nice runs no command that perfpin can follow"),
                new Refused(
                        "taskset|--bogus|0|java",
                        "taskset's option --bogus is not one perfpin knows, so it cannot"
                                + " tell whether it takes a value"),
                new Refused(
                        "numactl|-x|0|java",
                        "numactl's option -x is not one perfpin knows, so it cannot tell"
                                + " whether it takes a value"),
                new Refused(
                        "numactl|--p=0|java",
                        "numactl's option --p is not one perfpin knows, so it cannot tell"
                                + " whether it takes a value"));
        List<String> wrong = new ArrayList<>();
        for (Refused row : table) {
            List<String> words = List.of(row.command.split("\\|"));
            try {
                wrong.add(row.command + ": java found at "
                        + LaunchCommand.of(words).javaIndex());
            } catch (IllegalArgumentException e) {
                String expected = "no java command in '" + LaunchCommand.shown(words) + "': " + row.why + "; put java"
                        + " first, or after taskset, numactl, env, nice, chrt, ionice, setpriv, sudo, stdbuf, time or"
                        + " nohup and their options";
                if (!e.getMessage().equals(expected)) {
                    wrong.add(row.command + ": " + e.getMessage());
                }
            }
        }
        if (!wrong.isEmpty()) {
            fail(String.join("\n", wrong));
        }
    }

    @Test
    void theAgentGoesRightAfterJavaBeforeTheUsersOwnJvmOptions() {
        LaunchCommand launch = LaunchCommand.of(List.of(
                "taskset",
                "-c",
                "1",
                "/opt/jdk/bin/java",
                "-Xmx1g",
                "-javaagent:other.jar",
                "-jar",
                "app.jar",
                "java"));
        assertEquals(
                List.of(
                        "taskset",
                        "-c",
                        "1",
                        "/opt/jdk/bin/java",
                        "-javaagent:perfpin.jar",
                        "-Xmx1g",
                        "-javaagent:other.jar",
                        "-jar",
                        "app.jar",
                        "java"),
                launch.withJvmOption("-javaagent:perfpin.jar"));
    }

    @Test
    void theCommandIsQuotedAsAShellWouldTakeItBackAndCutWhenLong() {
        assertEquals(
                "sh -c \"java -Dx=\\\"a b\\\" \\$HOME\" \"\"",
                LaunchCommand.shown(List.of("sh", "-c", "java -Dx=\"a b\" $HOME", "")));
        String classPath = "lib/a.jar:".repeat(50);
        String shown = LaunchCommand.shown(List.of("sh", "-c", "java -cp " + classPath + " Main"));
        assertEquals(203, shown.length(), shown);
        assertEquals("...", shown.substring(200));
        assertThrows(
                IllegalArgumentException.class,
                () -> LaunchCommand.of(List.of("sh", "-c", "java -cp " + classPath + " Main")));
    }

    @Test
    void theUserJavaRunsAsIsTheOneAWrapperNamesWhenItIsAnother() {
        assertEquals(Optional.empty(), user("taskset -c 0 java Main", "alice", 1000));
        assertEquals(Optional.empty(), user("sudo java Main", "root", 0));
        assertEquals(Optional.of("root"), user("sudo java Main", "alice", 1000));
        assertEquals(Optional.empty(), user("sudo -u alice java Main", "alice", 1000));
        assertEquals(Optional.of("app"), user("sudo -u app java Main", "alice", 1000));
        assertEquals(Optional.empty(), user("sudo -u #1000 java Main", "alice", 1000));
        assertEquals(Optional.of("#1001"), user("sudo --user=#1001 java Main", "alice", 1000));
        assertEquals(Optional.empty(), user("setpriv --reuid=1000 java Main", "alice", 1000));
        assertEquals(Optional.of("1000"), user("setpriv --reuid 1000 java Main", "root", 0));
        assertEquals(Optional.of("app"), user("nice sudo -u root setpriv --euid=app java Main", "root", 0));
        assertEquals(Optional.empty(), user("setpriv --nnp java Main", "root", 0));
    }

    private static Optional<String> user(String command, String name, int uid) {
        return LaunchCommand.of(List.of(command.split(" "))).otherUser(name, uid);
    }
}
