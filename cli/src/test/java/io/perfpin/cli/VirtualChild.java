package io.perfpin.cli;

import io.perfpin.apps.VirtualMounts;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;

/**
 * A JVM whose virtual threads start when a test says so, once perfpin watches it: it prints {@code ready}, and at
 * each line {@code go} runs THREADS virtual threads {@code vm-0}, {@code vm-1}, ... ({@link VirtualMounts}, 100
 * yields each) to their end and prints {@code done THREADS}; it exits when its input closes. JDK 21 and later.
 *
 * <p>Usage: {@code VirtualChild THREADS}.
 */
public final class VirtualChild {
    private VirtualChild() {}

    public static void main(String[] args) throws IOException, InterruptedException {
        int threads = Integer.parseInt(args[0]);
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in, StandardCharsets.UTF_8));
        System.out.println("ready");
        for (String line = in.readLine(); line != null; line = in.readLine()) {
            if (line.equals("go")) {
                VirtualMounts.Result result = VirtualMounts.run(new VirtualMounts.Options(threads, 100));
                System.out.println("done " + result.threads());
            }
        }
    }
}
