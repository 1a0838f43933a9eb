package io.perfpin.jmh;

import java.util.List;
import java.util.Map;
import joptsimple.HelpFormatter;
import joptsimple.OptionDescriptor;
import org.openjdk.jmh.util.Utils;

/**
 * {@code -prof perfpin:help} laid out as JMH lays out its own profilers' options: a usage line, then each option as
 * {@code name=<argument>} in a 35-column field and its description wrapped beside it, defaults in brackets. JMH's own
 * formatter ({@code ProfilerOptionFormatter}) is package-private, so this one repeats its layout; the wrapping is
 * JMH's ({@link Utils#rewrap}).
 */
final class HelpLayout implements HelpFormatter {
    private static final String NEWLINE = System.lineSeparator();
    private static final int OPTION_WIDTH = 35;

    private final String profiler;

    HelpLayout(String profiler) {
        this.profiler = profiler;
    }

    @Override
    public String format(Map<String, ? extends OptionDescriptor> options) {
        StringBuilder help = new StringBuilder("Usage: -prof <profiler-name>:opt1=value1,value2;opt2=value3")
                .append(NEWLINE)
                .append(NEWLINE)
                .append("Options accepted by ")
                .append(profiler)
                .append(":")
                .append(NEWLINE);
        for (OptionDescriptor option : options.values()) {
            if (!option.representsNonOptions()) {
                help.append(NEWLINE).append(line(option)).append(NEWLINE);
            }
        }
        return help.toString();
    }

    private static String line(OptionDescriptor option) {
        StringBuilder name = new StringBuilder("  ").append(String.join(",", option.options()));
        if (option.acceptsArguments()) {
            name.append("=<").append(option.argumentDescription()).append(">");
        }
        String description = option.description();
        List<?> defaults = option.defaultValues();
        if (!defaults.isEmpty()) {
            description += " (default: " + defaults + ")";
        }
        StringBuilder line = new StringBuilder(String.format("%-" + OPTION_WIDTH + "s", name));
        boolean first = true;
        for (String wrapped : Utils.rewrap(description)) {
            if (!first) {
                line.append(NEWLINE).append(" ".repeat(OPTION_WIDTH));
            }
            line.append(wrapped);
            first = false;
        }
        return line.toString();
    }
}
