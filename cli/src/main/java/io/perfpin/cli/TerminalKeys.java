package io.perfpin.cli;

import java.io.File;
import java.io.FileInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;

/**
 * The keys a person presses in the live view's terminal, one at a time, without Enter: the terminal is put in
 * non-canonical mode without echo by {@code stty} (POSIX, on every Linux; a terminal library would bring a native
 * layer of its own for three keys), and given back its own settings when the view ends, on Ctrl-C too. Keys are read
 * on a daemon thread and handed over through a queue, so the view never blocks on them.
 */
final class TerminalKeys implements AutoCloseable {
    private static final File TTY = new File("/dev/tty");

    private final String saved;
    private final BlockingQueue<Character> keys = new LinkedBlockingQueue<>();
    private final Thread shutdownHook;

    private TerminalKeys(String saved) {
        this.saved = saved;
        this.shutdownHook = new Thread(this::restore, "perfpin-terminal");
    }

    /** Null when there is no terminal to read keys from, or stty cannot set it. */
    static TerminalKeys open() {
        try {
            String saved = stty("-g").strip();
            if (saved.isEmpty()) {
                return null;
            }
            stty("-icanon", "-echo", "min", "1");
            TerminalKeys keys = new TerminalKeys(saved);
            Runtime.getRuntime().addShutdownHook(keys.shutdownHook);
            Thread reader = new Thread(keys::read, "perfpin-keys");
            reader.setDaemon(true);
            reader.start();
            return keys;
        } catch (IOException e) {
            return null;
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return null;
        }
    }

    /** The next key pressed within {@code millis}, or 0 when none was. */
    char poll(long millis) throws InterruptedException {
        Character key = keys.poll(millis, TimeUnit.MILLISECONDS);
        return key == null ? 0 : key;
    }

    private void read() {
        try (InputStream in = new FileInputStream(TTY)) {
            for (int b = in.read(); b >= 0; b = in.read()) {
                keys.add((char) b);
            }
        } catch (IOException e) {
            // the terminal went away: no more keys
        }
    }

    private void restore() {
        try {
            stty(saved);
        } catch (IOException | InterruptedException e) {
            // nothing more to do for a terminal that is gone
        }
    }

    @Override
    public void close() {
        restore();
        try {
            Runtime.getRuntime().removeShutdownHook(shutdownHook);
        } catch (IllegalStateException shuttingDown) {
            // the hook restores it
        }
    }

    private static String stty(String... args) throws IOException, InterruptedException {
        String[] command = new String[args.length + 1];
        command[0] = "stty";
        System.arraycopy(args, 0, command, 1, args.length);
        Process stty = new ProcessBuilder(command)
                .redirectInput(TTY)
                .redirectError(ProcessBuilder.Redirect.DISCARD)
                .start();
        String out = new String(stty.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        if (!stty.waitFor(5, TimeUnit.SECONDS) || stty.exitValue() != 0) {
            throw new IOException("stty failed");
        }
        return out;
    }

    /** The terminal's rows, 0 when unknown. */
    static int rows() {
        try {
            String[] size = stty("size").strip().split(" ");
            return Integer.parseInt(size[0]);
        } catch (IOException | InterruptedException | RuntimeException e) {
            return 0;
        }
    }
}
