package io.perfpin.cli;

import io.perfpin.options.OptionLimits;
import picocli.CommandLine.ITypeConverter;

/**
 * A process id, as every command that takes a JVM reads it: a whole number from 1. Whether a process has it is asked
 * after, with its own exit code; what is no number at all is a usage error that says what a PID is.
 */
final class PidParser implements ITypeConverter<Long> {
    @Override
    public Long convert(String token) {
        try {
            long pid = Long.parseLong(token.strip());
            if (pid >= 1) {
                return pid;
            }
        } catch (NumberFormatException e) {
            // said below
        }
        throw new IllegalArgumentException("'" + OptionLimits.shown(token)
                + "' is no process id: expected a whole number from 1 (perfpin list shows your JVMs)");
    }
}
