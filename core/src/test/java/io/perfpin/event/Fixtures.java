package io.perfpin.event;

import java.net.URISyntaxException;
import java.nio.file.Path;

/** The sysfs trees under src/test/resources/sysfs (see the README there). */
final class Fixtures {
    private Fixtures() {}

    static Path sysfs(String machine) {
        try {
            return Path.of(Fixtures.class.getResource("/sysfs/" + machine).toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static EventParser parser(String machine) {
        return new EventParser(sysfs(machine), EventLookup.NOT_WIRED);
    }
}
