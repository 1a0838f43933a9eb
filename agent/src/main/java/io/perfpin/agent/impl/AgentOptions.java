package io.perfpin.agent.impl;

import io.perfpin.agent.metrics.MetricsOptions;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.files.EffectiveUser;
import io.perfpin.files.FileErrors;
import io.perfpin.files.NamedFile;
import io.perfpin.options.AgentOptionText;
import io.perfpin.options.DescriptorShare;
import io.perfpin.options.Durations;
import io.perfpin.options.OptionLimits;
import io.perfpin.options.PinRule;
import io.perfpin.options.ThreadPattern;
import io.perfpin.options.ThreadPatterns;
import io.perfpin.options.VirtualMax;
import io.perfpin.report.TerminalText;
import java.io.IOException;
import java.io.InputStream;
import java.nio.ByteBuffer;
import java.nio.channels.Channels;
import java.nio.channels.FileChannel;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * The agent's options, {@code -javaagent:perfpin-agent.jar=KEY=VALUE;KEY=VALUE...}, with the words of the
 * CLI's flags:
 * <pre>
 *   threads=REGEX           threads to count, by whole name (default: the application's threads);
 *                           count= is the same key
 *   class=REGEX             threads to count, by the name of their class (a Thread subclass)
 *   pin=REGEX@PLACEMENT     pin matching threads to a CPU list, isolated, core or any; repeatable, the
 *                           first matching rule wins; pinned threads are counted too
 *   inherit=REGEX           threads that keep a pin inherited from the thread that started them
 *   virtual=REGEX           virtual threads to count over the time they are mounted, by whole name (JDK 21 and
 *                           later; refused before): a final record each at its end; the stats file shows them by
 *                           group, the running ones' counts so far too
 *   virtual-max=N           counted virtual threads alive at once (default 250000); one beyond is not counted
 *   events=LIST             events and presets, comma-separated (default: sched)
 *   interval=DURATION       sampling interval (default: 500ms)
 *   out=FILE                JSON lines: samples every interval, a final record per thread
 *   stats=FILE|off          the memory-mapped stats file (default: the per-user perfpin directory)
 *   log=FILE                every notice with its time, every failure with its stack trace, each time
 *                           (bounded: {@link AgentLogFile}); a file that cannot be written is said once, and
 *                           the agent counts without it
 *   fds=SHARE               the file descriptors perfpin may hold: a share of those free when it starts
 *                           (25%, the default) or a number (4000); threads beyond it are not counted
 *   config=FILE             more options, one KEY=VALUE per line, # starts a comment; a bad line is quoted
 *                           only from a file of the JVM's user's own (see readConfig)
 *   detach                  (dynamic attach only) stop the agent running in this JVM
 *   quiet                   say things in the stats file only, for perfpin's CLI to show in its own output,
 *                           not on the application's stderr; without a stats file, stderr as usual
 * </pre>
 * and the metrics exports' ({@link MetricsOptions}).
 * A {@code ;} separates options on the command line; in a config file each line is one option, so a regex
 * there may contain {@code ;}.
 *
 * <p>Bounds, so that no option can stall the application or exhaust its memory:
 * <ul>
 *   <li>the option text: at most {@value OptionLimits#MAX_AGENT_OPTIONS_CHARS} characters;</li>
 *   <li>each value (a regex, a pin rule, an event list, a file name): at most
 *       {@value OptionLimits#MAX_VALUE_CHARS} characters;</li>
 *   <li>{@code pin=}: at most {@value OptionLimits#MAX_PIN_RULES} rules;</li>
 *   <li>a regex: RE2 syntax, matched in time linear in the name (RE2/J), and at most
 *       {@value ThreadPatterns#MAX_SIZE} elements once its counted repetitions are written out
 *       ({@code x{1000}} is 1000);</li>
 *   <li>{@code interval=}: at most a year;</li>
 *   <li>{@code config=}: a regular file (not a FIFO, a device or a directory) of at most
 *       {@value #MAX_CONFIG_BYTES} bytes of UTF-8.</li>
 * </ul>
 * A message quotes what the user wrote as it is: the log that says it escapes the whole line once
 * ({@link TerminalText}), so a backslash in it is not shown doubled twice.
 */
final class AgentOptions {
    static final String KEYS = "threads, class, pin, inherit, virtual, virtual-max, events, interval, out, stats, log,"
            + " fds, config, detach, quiet"
            + ", " + MetricsOptions.KEYS;
    /** 64 KiB: a config file holds a few rules, read while the JVM starts. */
    static final int MAX_CONFIG_BYTES = 64 * 1024;

    private ThreadPattern threads;
    private ThreadPattern classes;
    private final List<PinRule> pins = new ArrayList<>();
    private ThreadPattern inherit;
    private ThreadPattern virtual;
    private int virtualMax = VirtualMax.DEFAULT;
    private String events = AgentOptionText.DEFAULT_EVENTS;
    private EventList eventList;
    private long intervalNanos = AgentOptionText.DEFAULT_INTERVAL.toNanos();
    private Path out;
    private Path stats;
    private boolean statsOff;
    private Path log;
    private DescriptorShare descriptors = DescriptorShare.DEFAULT;
    private boolean detach;
    private boolean quiet;
    private final MetricsOptions metrics = new MetricsOptions();
    /** The text as given, for the stats file: a viewer compares its own options with it. */
    private String text = "";

    private AgentOptions() {}

    /**
     * @param text the text after {@code =} in {@code -javaagent:}; null or empty for the defaults
     * @throws IllegalArgumentException one line naming the bad token and what is allowed
     */
    static AgentOptions parse(String text, EventParser parser) {
        AgentOptions options = new AgentOptions();
        if (text != null) {
            if (text.length() > OptionLimits.MAX_AGENT_OPTIONS_CHARS) {
                throw new IllegalArgumentException("bad options '" + OptionLimits.shown(text) + "': too long ("
                        + text.length() + " characters; at most " + OptionLimits.MAX_AGENT_OPTIONS_CHARS + ")");
            }
            for (AgentOptionText.Token token : AgentOptionText.tokens(text, KEYS)) {
                options.apply(token, true);
            }
            options.text = text;
        }
        options.eventList = EventList.parse(options.events, parser);
        return options;
    }

    private void apply(AgentOptionText.Token option, boolean commandLine) {
        String token = option.text();
        String key = option.key();
        String value = option.value();
        if (key.equals("detach")) {
            detach = true;
            return;
        }
        if (key.equals("quiet")) {
            quiet = true;
            return;
        }
        switch (key) {
            case "threads" -> threads = ThreadPatterns.compile("threads option", token, value);
            case "class" -> classes = ThreadPatterns.compile("class option", token, value);
            case "pin" -> {
                OptionLimits.checkPinRules("pin", pins.size() + 1);
                pins.add(PinRule.parse(value));
            }
            case "inherit" -> inherit = ThreadPatterns.compile("inherit option", token, value);
            case "virtual" -> {
                if (Runtime.version().feature() < 21) {
                    throw new IllegalArgumentException("bad option '" + token + "': virtual threads need JDK 21 or"
                            + " later; this JVM is " + Runtime.version().feature());
                }
                virtual = ThreadPatterns.compile("virtual option", token, value);
            }
            case "virtual-max" -> virtualMax = VirtualMax.parse(token, value);
            case "events" -> events = value;
            case "interval" -> intervalNanos = Durations.parse(value).toNanos();
            case "out" -> out = path(token, value);
            case "log" -> log = path(token, value);
            case "stats" -> {
                statsOff = value.equals("off");
                stats = statsOff ? null : path(token, value);
            }
            case "fds" -> descriptors = DescriptorShare.parse(token, value);
            case "config" -> {
                if (!commandLine) {
                    throw new IllegalArgumentException("bad option '" + token + "': a config file cannot name another");
                }
                readConfig(token, path(token, value));
            }
            default -> {
                if (!metrics.apply(option)) {
                    throw new IllegalArgumentException(
                            "bad option '" + token + "': unknown key '" + key + "'; allowed: " + KEYS);
                }
            }
        }
    }

    private void readConfig(String token, Path file) {
        String text;
        boolean shown;
        try {
            text = StandardCharsets.UTF_8
                    .newDecoder()
                    .decode(ByteBuffer.wrap(configBytes(token, file)))
                    .toString();
            shown = showsItsLines(file);
        } catch (CharacterCodingException e) {
            throw new IllegalArgumentException("bad option '" + token + "': " + file + " is not UTF-8 text");
        } catch (IOException e) {
            throw new IllegalArgumentException(
                    "bad option '" + token + "': cannot read " + file + ": " + FileErrors.reason(e));
        }
        String[] lines = text.split("\n");
        for (int i = 0; i < lines.length; i++) {
            try {
                AgentOptionText.Token option =
                        lines[i].strip().startsWith("#") ? null : AgentOptionText.token(lines[i], KEYS);
                if (option != null) {
                    apply(option, false);
                }
            } catch (IllegalArgumentException e) {
                if (shown) {
                    throw e;
                }
                throw new IllegalArgumentException("bad option '" + token + "': line " + (i + 1) + " of " + file
                        + " is not a valid option (not shown: the file is not this user's own)");
            }
        }
    }

    /**
     * Whether a message may quote a line of this config file: only when it is the JVM's user's own. A root JVM
     * given {@code config=/etc/shadow} would otherwise print a line of it to the application's stderr, which its
     * logs keep and other users read; so of root's files, only those that anyone may read are quoted.
     */
    private static boolean showsItsLines(Path file) throws IOException {
        Map<String, Object> status = Files.readAttributes(file, "unix:uid,mode");
        int uid = EffectiveUser.uid();
        return (Integer) status.get("uid") == uid && (uid != 0 || ((Integer) status.get("mode") & 0004) != 0);
    }

    /**
     * A regular file only ({@link NamedFile}: checked before it is opened, reached through no other user's
     * link), read up to one byte past the bound: a FIFO would block the JVM's start, and {@code /dev/zero} never
     * end.
     */
    private static byte[] configBytes(String token, Path file) throws IOException {
        FileChannel channel;
        try {
            channel = NamedFile.openForReading(file);
        } catch (NamedFile.Refused e) {
            throw new IllegalArgumentException("bad option '" + token + "': " + e.getMessage());
        }
        try (InputStream in = Channels.newInputStream(channel)) {
            byte[] bytes = in.readNBytes(MAX_CONFIG_BYTES + 1);
            if (bytes.length > MAX_CONFIG_BYTES) {
                throw new IllegalArgumentException(
                        "bad option '" + token + "': " + file + " is larger than " + MAX_CONFIG_BYTES + " bytes");
            }
            return bytes;
        }
    }

    private static Path path(String token, String value) {
        if (value.isEmpty()) {
            throw new IllegalArgumentException("bad option '" + token + "': expected a file name");
        }
        OptionLimits.checkLength("option", token, value);
        try {
            return Paths.get(value).toAbsolutePath();
        } catch (InvalidPathException e) {
            throw new IllegalArgumentException("bad option '" + token + "': not a file name (" + e.getReason() + ")");
        }
    }

    ThreadRules rules() {
        return new ThreadRules(threads, classes, pins, inherit);
    }

    /** The virtual threads to count; null for none. */
    ThreadPattern virtual() {
        return virtual;
    }

    /** How many counted virtual threads may be alive at once. */
    int virtualMax() {
        return virtualMax;
    }

    EventList events() {
        return eventList;
    }

    long intervalNanos() {
        return intervalNanos;
    }

    /** Null when nothing is recorded. */
    Path out() {
        return out;
    }

    /** Null for the default place. */
    Path stats() {
        return stats;
    }

    boolean statsOff() {
        return statsOff;
    }

    /** Null when no log= file is written. */
    Path log() {
        return log;
    }

    DescriptorShare descriptors() {
        return descriptors;
    }

    boolean quiet() {
        return quiet;
    }

    /** The options as given ({@code -javaagent:...=TEXT}), empty for none. */
    String text() {
        return text;
    }

    boolean detach() {
        return detach;
    }

    /** The metrics exports asked for (none by default). */
    MetricsOptions metrics() {
        return metrics;
    }
}
