package io.perfpin.testkit;

/**
 * A system property set for a test's block, {@code try (SystemProperty dir = SystemProperty.set(NAME, value))}, and
 * given back its value from before, or cleared where it had none, when the block ends however it ends.
 */
public final class SystemProperty implements AutoCloseable {
    private final String name;
    private final String before;

    private SystemProperty(String name, String before) {
        this.name = name;
        this.before = before;
    }

    public static SystemProperty set(String name, String value) {
        SystemProperty restored = new SystemProperty(name, System.getProperty(name));
        System.setProperty(name, value);
        return restored;
    }

    @Override
    public void close() {
        if (before == null) {
            System.clearProperty(name);
        } else {
            System.setProperty(name, before);
        }
    }
}
