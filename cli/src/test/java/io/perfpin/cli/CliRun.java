package io.perfpin.cli;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;

/** Runs the perfpin command in this JVM and captures its exit code, standard output and error. */
final class CliRun {
    int code;
    String out;
    String err;

    static CliRun capture(java.util.function.IntSupplier command) {
        PrintStream stdout = System.out;
        PrintStream stderr = System.err;
        ByteArrayOutputStream o = new ByteArrayOutputStream();
        ByteArrayOutputStream e = new ByteArrayOutputStream();
        CliRun result = new CliRun();
        try {
            System.setOut(new PrintStream(o, true, StandardCharsets.UTF_8));
            System.setErr(new PrintStream(e, true, StandardCharsets.UTF_8));
            result.code = command.getAsInt();
        } finally {
            System.setOut(stdout);
            System.setErr(stderr);
        }
        result.out = o.toString(StandardCharsets.UTF_8);
        result.err = e.toString(StandardCharsets.UTF_8);
        return result;
    }
}
