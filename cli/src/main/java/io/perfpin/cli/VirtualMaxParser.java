package io.perfpin.cli;

import io.perfpin.options.VirtualMax;
import picocli.CommandLine.ITypeConverter;

/** {@code --virtual-max}: parsed as the agent parses its {@code virtual-max=} ({@link VirtualMax}). */
final class VirtualMaxParser implements ITypeConverter<Integer> {
    @Override
    public Integer convert(String token) {
        return VirtualMax.parse(token);
    }
}
