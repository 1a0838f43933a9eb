package io.perfpin.cli;

import java.util.Arrays;
import java.util.stream.Collectors;

/**
 * A class path for an application perfpin launches from its own build: the agent's classes left out, since
 * the agent must come from its jar alone (it finds its implementation there, and a copy on the application's
 * class path would be loaded in its place).
 */
final class ApplicationClassPath {
    private ApplicationClassPath() {}

    static String withoutAgent(String classPath) {
        return Arrays.stream(classPath.split(":"))
                .filter(entry -> !entry.contains("perfpin-agent") && !entry.endsWith("agent/target/classes"))
                .collect(Collectors.joining(":"));
    }
}
