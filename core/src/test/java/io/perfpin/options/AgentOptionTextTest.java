package io.perfpin.options;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** The one codec of the agent's options: what the CLI builds, the agent reads back as exactly those options. */
class AgentOptionTextTest {
    private static final String KEYS = "threads, class, pin, events, interval, out, quiet";

    @Test
    void whatTheBuilderWritesReadsBackAsTheSameOptions() {
        String text = new AgentOptionText.Builder()
                .option("threads", "busy-.*|pool-\\d+=x@y", "--threads")
                .option("class", "com\\.acme\\..*Worker", "--class")
                .option("pin", "io-\\d+@isolated", "--pin")
                .option("pin", "disruptor-(a|b)@2-3", "--pin")
                .option("events", "ipc,cpu/event=0x08,umask=0x0e/,sched", "--events")
                .interval(Duration.ofMillis(250))
                .option("out", "/tmp/a b/run=1.jsonl", "--record")
                .flag("quiet")
                .text();
        Map<String, List<String>> expected = new LinkedHashMap<>();
        expected.put("threads", List.of("busy-.*|pool-\\d+=x@y"));
        expected.put("class", List.of("com\\.acme\\..*Worker"));
        expected.put("pin", List.of("io-\\d+@isolated", "disruptor-(a|b)@2-3"));
        expected.put("events", List.of("ipc,cpu/event=0x08,umask=0x0e/,sched"));
        expected.put("interval", List.of("250000000ns"));
        expected.put("out", List.of("/tmp/a b/run=1.jsonl"));
        expected.put("quiet", List.of(""));
        assertEquals(expected, AgentOptionText.settings(text));

        Map<String, List<String>> tokens = new LinkedHashMap<>();
        AgentOptionText.tokens(text, KEYS)
                .forEach(t -> tokens.computeIfAbsent(t.key(), k -> new java.util.ArrayList<>())
                        .add(t.value()));
        assertEquals(expected, tokens, "the agent's reading");
        assertEquals(
                Duration.ofMillis(250), Durations.parse(expected.get("interval").get(0)));
    }

    @Test
    void aValueTheTextCannotCarryIsRefusedInOneLine() {
        IllegalArgumentException semicolon = assertThrows(
                IllegalArgumentException.class,
                () -> new AgentOptionText.Builder().option("threads", "a;b", "--threads"));
        assertEquals(
                "--threads 'a;b': ';' separates the agent's options; use a character class such as [;] in a"
                        + " config file given with -javaagent:...=config=FILE",
                semicolon.getMessage());
        IllegalArgumentException blank = assertThrows(
                IllegalArgumentException.class,
                () -> new AgentOptionText.Builder().option("threads", " worker", "--threads"));
        assertEquals(
                "--threads ' worker': the agent's options cannot carry a value that is empty or starts or ends"
                        + " with a blank",
                blank.getMessage());
        assertThrows(
                IllegalArgumentException.class,
                () -> new AgentOptionText.Builder()
                        .option("threads", "x".repeat(OptionLimits.MAX_AGENT_OPTIONS_CHARS), "--threads")
                        .text());
    }
}
