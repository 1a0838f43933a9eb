package io.perfpin.agent.impl.jfr;

import io.perfpin.event.DerivedMetric;
import io.perfpin.event.GenericEvents;
import io.perfpin.nativeio.Backends;
import java.util.ArrayList;
import java.util.List;
import jdk.jfr.AnnotationElement;
import jdk.jfr.Category;
import jdk.jfr.Description;
import jdk.jfr.Frequency;
import jdk.jfr.Label;
import jdk.jfr.Name;
import jdk.jfr.Percentage;
import jdk.jfr.StackTrace;
import jdk.jfr.Timespan;
import jdk.jfr.ValueDescriptor;

/**
 * The annotations perfpin's JFR event types and fields carry, in one place: the category JMC files them under,
 * labels that are perfpin's own names, and units where a value has one.
 */
final class EventTypes {
    static final String CATEGORY = "perfpin";

    private EventTypes() {}

    /**
     * A type's annotations: its name, label, description (both naming the simulated PMU where one counts), perfpin's
     * category, and no stack trace (the sampler's).
     */
    static List<AnnotationElement> type(String name, String label, String description) {
        // In tests on a simulated PMU the type itself says so: every viewer shows its label and description.
        String simulated = Backends.simulatedPmu();
        String shown = simulated == null ? label : label + " (" + simulated + " PMU)";
        String described = simulated == null
                ? description
                : description + ". Its hardware counts come from a " + simulated
                        + " PMU, made from the thread's task-clock for tests: not a measurement";
        return List.of(
                new AnnotationElement(Name.class, name),
                new AnnotationElement(Label.class, shown),
                new AnnotationElement(Description.class, described),
                new AnnotationElement(Category.class, new String[] {CATEGORY}),
                new AnnotationElement(StackTrace.class, false));
    }

    static ValueDescriptor field(
            Class<?> type, String id, String label, String description, AnnotationElement... more) {
        List<AnnotationElement> annotations = new ArrayList<>(List.of(
                new AnnotationElement(Label.class, label), new AnnotationElement(Description.class, description)));
        annotations.addAll(List.of(more));
        return new ValueDescriptor(type, id, annotations);
    }

    /** A count of {@code event}: a duration in nanoseconds for task-clock and cpu-clock, else a plain number. */
    static ValueDescriptor count(String id, String event, String description) {
        return GenericEvents.countsNanoseconds(event)
                ? field(long.class, id, event, description, nanoseconds())
                : field(long.class, id, event, description);
    }

    /** A derived metric, with the unit its definition gives. */
    static ValueDescriptor metric(String id, DerivedMetric metric) {
        return switch (metric.unit()) {
            case SHARE ->
                field(double.class, id, metric.name(), metric.description(), new AnnotationElement(Percentage.class));
            case PER_SECOND ->
                field(double.class, id, metric.name(), metric.description(), new AnnotationElement(Frequency.class));
            default -> field(double.class, id, metric.name(), metric.description());
        };
    }

    static AnnotationElement nanoseconds() {
        return new AnnotationElement(Timespan.class, Timespan.NANOSECONDS);
    }

    static AnnotationElement percentage() {
        return new AnnotationElement(Percentage.class);
    }
}
