package io.perfpin.cli;

import io.perfpin.counter.CounterGroup;
import io.perfpin.counter.EventFailure;
import io.perfpin.event.DerivedMetric;
import io.perfpin.event.EventList;
import io.perfpin.event.EventParser;
import io.perfpin.event.EventSpec;
import io.perfpin.event.GenericEvents;
import io.perfpin.event.InvalidEventException;
import io.perfpin.event.LibpfmEncoder;
import io.perfpin.event.NearestNames;
import io.perfpin.event.Preset;
import io.perfpin.event.Presets;
import io.perfpin.event.UnknownEventException;
import io.perfpin.event.UnsupportedEvent;
import io.perfpin.nativeio.Backends;
import io.perfpin.nativeio.Syscalls;
import io.perfpin.nativeio.libpfm.LibpfmException;
import io.perfpin.report.TerminalText;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;
import java.util.stream.Collectors;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * The events and presets, and which of them this machine counts, found by opening each for this thread;
 * or the encoding of named events, for this machine or, with {@code --pmu}, for a CPU model it is not.
 */
@Command(
        name = "events",
        mixinStandardHelpOptions = true,
        description = {
            "List events and presets and whether this machine counts them (probed), or encode events.",
            "With NAMEs, shows their encoding: for this machine, or with --pmu for a CPU model you do not have"
                    + " (through libpfm4), as type=<n> config=0x<hex>. A preset's name (without --pmu) shows each of"
                    + " its events so, probed, and its metrics."
        })
final class EventsCommand implements Callable<Integer> {
    @Option(
            names = "--pmu",
            paramLabel = "MODEL",
            description = "A libpfm4 CPU model such as skl, icl, spr, zen3 (encodings only).")
    String pmu;

    @Parameters(paramLabel = "NAME", arity = "0..*", description = "Events to encode, or presets (their events).")
    List<String> names = List.of();

    @Override
    public Integer call() {
        if (pmu != null) {
            if (names.isEmpty()) {
                throw new IllegalArgumentException("--pmu " + pmu + " needs event names to encode");
            }
            if (!LibpfmEncoder.available()) {
                throw new IllegalStateException(LibpfmEncoder.unavailableReason());
            }
            for (String name : names) {
                say(TerminalText.escape(name) + "  " + encodeFor(pmu, name).encoding());
            }
            return ExitCode.OK;
        }
        EventParser parser = new EventParser();
        Syscalls syscalls = Backends.syscalls();
        String simulated = Backends.simulatedPmuNotice(syscalls);
        if (simulated != null) {
            // "supported" is then the simulation's answer for hardware events, not this machine's
            System.err.println("perfpin events: " + simulated);
        }
        if (!names.isEmpty()) {
            for (String name : names) {
                Optional<Preset> preset = Presets.find(name);
                if (preset.isPresent()) {
                    presetEvents(preset.get(), parser, syscalls);
                } else {
                    EventSpec spec = parser.parse(name);
                    say(TerminalText.escape(name) + "  " + spec.encoding() + "  " + probe(syscalls, spec));
                }
            }
            return ExitCode.OK;
        }
        say("Presets:");
        for (Preset preset : Presets.all()) {
            say("  " + preset.name() + "  " + preset.description());
            say("      events:  " + String.join(", ", preset.events()));
            say("      metrics: " + metrics(preset));
        }
        say("Events (probed on this machine, for this thread):");
        // One reason often holds for many events (no PMU: every hardware one): each is said once, numbered.
        List<String> reasons = new ArrayList<>();
        for (String name : GenericEvents.names()) {
            String reason = unsupported(syscalls, parser.parse(name));
            if (reason == null) {
                say("  " + name + "  supported");
            } else {
                if (!reasons.contains(reason)) {
                    reasons.add(reason);
                }
                say("  " + name + "  unsupported [" + (reasons.indexOf(reason) + 1) + "]");
            }
        }
        for (int i = 0; i < reasons.size(); i++) {
            say("[" + (i + 1) + "] " + TerminalText.escape(reasons.get(i)));
        }
        say("Also: raw rUUEE, pmu/term=value,.../ (sysfs), and CPU-specific names through libpfm4"
                + (LibpfmEncoder.available() ? "" : " (" + LibpfmEncoder.unavailableReason() + ")") + ".");
        return ExitCode.OK;
    }

    /**
     * A preset named where events are: what it is, then each of its events as a named one is shown (encoded and
     * probed), those this machine cannot encode with why, and its metrics.
     */
    private static void presetEvents(Preset preset, EventParser parser, Syscalls syscalls) {
        EventList events = EventList.parse(preset.name(), parser);
        say(preset.name() + "  " + preset.description());
        for (EventSpec spec : events.events()) {
            say("  " + TerminalText.escape(spec.name()) + "  " + spec.encoding() + "  " + probe(syscalls, spec));
        }
        for (UnsupportedEvent event : events.unsupported()) {
            say("  " + TerminalText.escape(event.event() + "  unsupported: " + event.reason()));
        }
        say("  metrics: " + metrics(preset));
    }

    private static String metrics(Preset preset) {
        return preset.metrics().stream().map(DerivedMetric::name).collect(Collectors.joining(", "));
    }

    /** A line of the listing, folded at spaces to {@value ViewOptions#DEFAULT_WIDTH} columns, as tables are. */
    private static void say(String line) {
        ReportTable.fold(line, ViewOptions.DEFAULT_WIDTH).forEach(System.out::println);
    }

    /** A name or model libpfm4 does not know is the user's mistake: say so with the nearest names. */
    private static EventSpec encodeFor(String model, String name) {
        try {
            return LibpfmEncoder.encode(name, model);
        } catch (LibpfmException e) {
            if (!e.eventNotFound()) {
                throw new InvalidEventException(e.getMessage());
            }
            throw new UnknownEventException(
                    "event",
                    name,
                    "not a " + model + " event in libpfm4",
                    NearestNames.nearest(name, LibpfmEncoder.eventNames(model)));
        }
    }

    private static String probe(Syscalls syscalls, EventSpec spec) {
        String reason = unsupported(syscalls, spec);
        return reason == null ? "supported" : "unsupported: " + reason;
    }

    /** Why this thread cannot count {@code spec}; null when it can. */
    private static String unsupported(Syscalls syscalls, EventSpec spec) {
        try (CounterGroup group = CounterGroup.open(syscalls, 0, List.of(spec))) {
            List<EventFailure> failures = group.unsupported();
            return failures.isEmpty() ? null : failures.get(0).reason();
        }
    }
}
