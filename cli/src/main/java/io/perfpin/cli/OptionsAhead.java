package io.perfpin.cli;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Field;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Mixin;

/**
 * Reads the annotations that picocli reads to build a command's model, ahead of it, on another thread: the command
 * class's, its fields' and methods', and those of every mixin and argument group its fields name. The JDK parses a
 * member's annotations once and keeps them where every later reader finds them, and makes each annotation type's
 * proxy class once, so picocli then finds them ready. Parsing them is about half of the model's cost.
 */
final class OptionsAhead {
    private OptionsAhead() {}

    /** Reads {@code command}'s annotations, and its mixins' and groups', to their ends. */
    static void read(Class<?> command) {
        for (Class<?> type = command; type != null && type != Object.class; type = type.getSuperclass()) {
            type.getAnnotations();
            for (AccessibleObject method : type.getDeclaredMethods()) {
                method.getAnnotations();
            }
            for (Field field : type.getDeclaredFields()) {
                if (field.isAnnotationPresent(Mixin.class) || field.isAnnotationPresent(ArgGroup.class)) {
                    read(field.getType());
                }
            }
        }
    }
}
