package io.perfpin.cli;

import io.perfpin.options.DescriptorShare;
import picocli.CommandLine.ITypeConverter;

/**
 * {@code --fds SHARE}: the file descriptors a counting process may hold, a share of those it has free or a number.
 * {@code stat} and the agent's options ({@link AgentSettings}) describe it each for their own process.
 */
final class DescriptorShareParser implements ITypeConverter<DescriptorShare> {
    @Override
    public DescriptorShare convert(String token) {
        return DescriptorShare.parse(token);
    }
}
