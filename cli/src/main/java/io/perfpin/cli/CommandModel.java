package io.perfpin.cli;

import java.lang.reflect.AccessibleObject;
import java.lang.reflect.Constructor;
import java.lang.reflect.Field;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Member;
import java.lang.reflect.Method;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.IGetter;
import picocli.CommandLine.Model.ISetter;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/**
 * A command's picocli model, written when the jar is built and read back at its start: the same {@link CommandSpec}
 * that picocli makes from the command's annotations, made through picocli's programmatic API instead. Reading the
 * annotations was most of {@code perfpin stat}'s start: the JDK makes a proxy class at run time for each annotation
 * type it meets (seven for stat: four of picocli's, {@code Retention} on each of those, and {@code Deprecated} and
 * {@code IntrinsicCandidate} on {@code Object}'s methods, each written with ASM in the interpreter): about 30 ms of
 * CPU before a count, on the main thread or on one that it waited for.
 *
 * <p>The build ({@code cli/src/build/java/CommandModels.java}) writes {@link #describe} of a command class into a class
 * of its own beside it, {@code <Command>Model}, a {@link Supplier} of the text; {@link #commandLine} reads it where it
 * is, and otherwise asks picocli to read the annotations, as it always did. {@code CommandModelTest} checks that both
 * ways make the same model: every attribute of every option and parameter, the usage, and what parsing sets. The
 * annotations stay the one place where an option is declared.
 *
 * <p>The text is a sequence of tokens, each ended by {@link #END}; a list is its count, then each item after an
 * {@link #ITEM}; null is {@link #NULL}. In order:
 *
 * <pre>
 * name, description (a list)                                        the command
 * mixin count, then per mixin: name, class, field of the command     its mixins, in picocli's order
 * argument count, then per argument:                                 its options and parameters, in picocli's order
 *   kind (option or parameter), owner (a mixin's name, or empty for the command), member (field NAME or
 *   method NAME TYPE), then an option's names (a list), help, usageHelp, versionHelp, negatable, fallbackValue
 *   and order, or a parameter's index; then required, interactive, echo, prompt, description (a list),
 *   descriptionKey, arity, whether arity was given, paramLabel, hideParamSyntax, type, auxiliaryTypes (a list),
 *   converters (a list of classes), splitRegex, splitRegexSynopsisLabel, hidden, inherited, mapFallbackValue,
 *   defaultValue, hasInitialValue, showDefaultValue, completionCandidates (a list, or null), scopeType
 * </pre>
 *
 * Strings are picocli's raw ones (a description's {@code ${DEFAULT-VALUE}} and {@code %%} as written), which picocli
 * renders as it renders the annotations'.
 */
final class CommandModel {
    private static final char END = '\0';
    private static final char ITEM = '\1';
    private static final String NULL = "\2";
    private static final String OPTION = "option";
    private static final String PARAMETER = "parameter";

    /**
     * The commands whose models the build writes: those whose start is what they cost. The others start as picocli
     * reads them, and look for no model.
     */
    static final List<Class<?>> MODELLED = List.of(StatCommand.class);

    private CommandModel() {}

    /**
     * {@code command}'s command line: from the model the build wrote beside its class, else from its annotations.
     */
    static CommandLine commandLine(Object command) {
        String model = MODELLED.contains(command.getClass()) ? written(command.getClass()) : null;
        if (model != null) {
            try {
                return new CommandLine(read(model, command));
            } catch (RuntimeException e) {
                // A model that does not read is one of classes since changed, in a build that did not write it again
                // (an IDE's): the annotations say the same, only slower, and CommandModelTest fails on it.
            }
        }
        return new CommandLine(command);
    }

    /**
     * The model the build wrote for {@code type}; null where it wrote none (a build of the classes alone) or none that
     * loads, which is then as a model that does not read.
     */
    private static String written(Class<?> type) {
        try {
            Class<?> model = Class.forName(type.getName() + "Model", true, type.getClassLoader());
            @SuppressWarnings("unchecked")
            Supplier<String> text =
                    (Supplier<String>) model.getDeclaredConstructor().newInstance();
            return text.get();
        } catch (ReflectiveOperationException | RuntimeException e) {
            return null;
        }
    }

    /** The model of the command line picocli makes from {@code command}'s annotations, as text. */
    static String describe(Object command) {
        CommandSpec spec = new CommandLine(command).getCommandSpec();
        if (!spec.argGroups().isEmpty()
                || !spec.unmatchedArgsBindings().isEmpty()
                || !spec.specElements().isEmpty()
                || !spec.parentCommandElements().isEmpty()
                || !spec.subcommands().isEmpty()) {
            throw new IllegalArgumentException(command.getClass().getName() + ": argument groups, unmatched"
                    + " arguments, @Spec, @ParentCommand and subcommands are not in a command model");
        }
        // picocli's getters then give the strings as written, which it expands where it renders them.
        spec.interpolateVariables(false);
        StringBuilder text = new StringBuilder();
        token(text, spec.name());
        list(text, command.getClass().getAnnotation(Command.class).description());
        Map<Object, String> owners = new LinkedHashMap<>();
        token(text, Integer.toString(spec.mixins().size()));
        for (Map.Entry<String, CommandSpec> mixin : spec.mixins().entrySet()) {
            token(text, mixin.getKey());
            token(text, mixin.getValue().userObject().getClass().getName());
            boolean field = spec.mixinAnnotatedElements().containsKey(mixin.getKey());
            token(
                    text,
                    field ? spec.mixinAnnotatedElements().get(mixin.getKey()).getName() : "");
            for (ArgSpec arg : mixin.getValue().args()) {
                owners.put(arg.userObject(), mixin.getKey());
            }
        }
        token(text, Integer.toString(spec.args().size()));
        for (ArgSpec arg : spec.args()) {
            describe(text, arg, owners.getOrDefault(arg.userObject(), ""));
        }
        return text.toString();
    }

    private static void describe(StringBuilder text, ArgSpec arg, String owner) {
        Class<?> noPreprocessor =
                OptionSpec.builder("-x").build().preprocessor().getClass();
        if (arg.parameterConsumer() != null || arg.preprocessor().getClass() != noPreprocessor) {
            throw new IllegalArgumentException(
                    arg + ": a parameter consumer or preprocessor is not in a command model");
        }
        token(text, arg.isOption() ? OPTION : PARAMETER);
        token(text, owner);
        member(text, arg.userObject());
        if (arg instanceof OptionSpec option) {
            list(text, option.names());
            flags(text, option.help(), option.usageHelp(), option.versionHelp(), option.negatable());
            nullable(text, option.fallbackValue());
            token(text, Integer.toString(option.order()));
        } else {
            token(text, ((PositionalParamSpec) arg).index().toString());
        }
        flags(text, arg.required(), arg.interactive(), arg.echo());
        nullable(text, arg.prompt());
        list(text, arg.description());
        nullable(text, arg.descriptionKey());
        token(text, arg.arity().toString());
        // picocli takes --flag=true only where no arity was given, which a range's text does not say.
        flags(text, arg.arity().isUnspecified());
        nullable(text, arg.paramLabel());
        flags(text, arg.hideParamSyntax());
        token(text, arg.type().getName());
        List<String> types = new ArrayList<>();
        for (Class<?> type : arg.auxiliaryTypes()) {
            types.add(type.getName());
        }
        list(text, types.toArray(new String[0]));
        List<String> converters = new ArrayList<>();
        for (ITypeConverter<?> converter : arg.converters()) {
            converters.add(converter.getClass().getName());
        }
        list(text, converters.toArray(new String[0]));
        nullable(text, arg.splitRegex());
        nullable(text, arg.splitRegexSynopsisLabel());
        flags(text, arg.hidden(), arg.inherited());
        nullable(text, arg.mapFallbackValue());
        nullable(text, arg.defaultValue());
        flags(text, arg.hasInitialValue());
        token(text, arg.showDefaultValue().name());
        if (arg.completionCandidates() == null) {
            nullable(text, null);
        } else {
            List<String> candidates = new ArrayList<>();
            arg.completionCandidates().forEach(candidates::add);
            list(text, candidates.toArray(new String[0]));
        }
        token(text, arg.scopeType().name());
    }

    private static void member(StringBuilder text, Object member) {
        if (member instanceof Field field) {
            token(text, "field " + field.getName());
        } else if (member instanceof Method method && method.getParameterCount() == 1) {
            token(text, "method " + method.getName() + " " + method.getParameterTypes()[0].getName());
        } else {
            throw new IllegalArgumentException(
                    member + ": only a field or a one-argument method is in a command model");
        }
    }

    private static void flags(StringBuilder text, boolean... flags) {
        for (boolean flag : flags) {
            token(text, flag ? "1" : "0");
        }
    }

    private static void nullable(StringBuilder text, String value) {
        if (value == null) {
            text.append(NULL).append(END);
        } else {
            token(text, value);
        }
    }

    /** Its count, then each item: an empty list and a list of one empty string differ. */
    private static void list(StringBuilder text, String... items) {
        text.append(items.length);
        for (String item : items) {
            text.append(ITEM).append(checked(item));
        }
        text.append(END);
    }

    private static void token(StringBuilder text, String token) {
        text.append(checked(token)).append(END);
    }

    private static String checked(String token) {
        if (token.indexOf(END) >= 0 || token.indexOf(ITEM) >= 0 || token.equals(NULL)) {
            throw new IllegalArgumentException("a command model's token cannot hold \\0 or \\1, or be \\2: " + token);
        }
        return token;
    }

    /** The model {@code model} describes, bound to {@code command} and to mixins it makes and sets in its fields. */
    static CommandSpec read(String model, Object command) {
        Tokens tokens = new Tokens(model);
        CommandSpec spec = CommandSpec.wrapWithoutInspection(command);
        spec.name(tokens.next());
        spec.usageMessage().description(tokens.list());
        Map<String, CommandSpec> mixins = new LinkedHashMap<>();
        for (int i = tokens.count(); i > 0; i--) {
            String name = tokens.next();
            Class<?> type = classNamed(tokens.next());
            String field = tokens.next();
            Binding binding = field.isEmpty() ? null : new Binding(spec, command, field(command.getClass(), field));
            // As picocli does: a mixin the command made itself is the one its options set.
            Object mixin = binding != null && binding.get() != null ? binding.get() : create(type);
            if (binding != null) {
                binding.set(mixin);
            }
            mixins.put(name, CommandSpec.wrapWithoutInspection(mixin));
        }
        // Read whole before any joins the command: picocli copies a mixin's options into the command as it joins.
        List<String> owners = new ArrayList<>();
        List<ArgSpec> args = new ArrayList<>();
        for (int i = tokens.count(); i > 0; i--) {
            String kind = tokens.next();
            String owner = tokens.next();
            CommandSpec holder = owner.isEmpty() ? spec : mixins.get(owner);
            AccessibleObject member = member(holder.userObject().getClass(), tokens.next());
            Binding binding = new Binding(spec, holder.userObject(), member);
            ArgSpec arg = kind.equals(OPTION) ? option(tokens, binding) : parameter(tokens, binding);
            if (!owner.isEmpty()) {
                add(holder, arg);
            }
            owners.add(owner);
            args.add(arg);
        }
        // In picocli's order: a mixin where its first option was.
        for (int i = 0; i < args.size(); i++) {
            String owner = owners.get(i);
            if (owner.isEmpty()) {
                add(spec, args.get(i));
            } else if (!spec.mixins().containsKey(owner)) {
                spec.addMixin(owner, mixins.get(owner));
            }
        }
        for (Map.Entry<String, CommandSpec> mixin : mixins.entrySet()) {
            if (!spec.mixins().containsKey(mixin.getKey())) {
                spec.addMixin(mixin.getKey(), mixin.getValue());
            }
        }
        tokens.checkEnd();
        return spec;
    }

    private static void add(CommandSpec spec, ArgSpec arg) {
        if (arg instanceof OptionSpec option) {
            spec.addOption(option);
        } else {
            spec.addPositional((PositionalParamSpec) arg);
        }
    }

    private static OptionSpec option(Tokens tokens, Binding binding) {
        OptionSpec.Builder o = OptionSpec.builder(tokens.list());
        o.help(tokens.flag())
                .usageHelp(tokens.flag())
                .versionHelp(tokens.flag())
                .negatable(tokens.flag());
        o.fallbackValue(tokens.nullable()).order(Integer.parseInt(tokens.next()));
        Common c = Common.read(tokens, binding);
        o.required(c.required).interactive(c.interactive).echo(c.echo).prompt(c.prompt);
        o.description(c.description)
                .descriptionKey(c.descriptionKey)
                .arity(c.arity)
                .paramLabel(c.paramLabel);
        o.hideParamSyntax(c.hideParamSyntax)
                .type(c.type)
                .auxiliaryTypes(c.auxiliaryTypes)
                .converters(c.converters);
        o.splitRegex(c.splitRegex)
                .splitRegexSynopsisLabel(c.splitRegexSynopsisLabel)
                .hidden(c.hidden);
        o.inherited(c.inherited).defaultValue(c.defaultValue);
        o.mapFallbackValue(c.mapFallbackValue); // returns the builder as its base type, which is not public
        o.hasInitialValue(c.hasInitialValue).initialValue(c.initialValue).showDefaultValue(c.showDefaultValue);
        o.completionCandidates(c.completionCandidates).scopeType(c.scopeType);
        return o.getter(binding).setter(binding).userObject(binding.member).build();
    }

    /** {@link #option}'s, for a parameter: picocli's ArgSpec.Builder, which both extend, is not public. */
    private static PositionalParamSpec parameter(Tokens tokens, Binding binding) {
        PositionalParamSpec.Builder p = PositionalParamSpec.builder().index(tokens.next());
        Common c = Common.read(tokens, binding);
        p.required(c.required).interactive(c.interactive).echo(c.echo).prompt(c.prompt);
        p.description(c.description)
                .descriptionKey(c.descriptionKey)
                .arity(c.arity)
                .paramLabel(c.paramLabel);
        p.hideParamSyntax(c.hideParamSyntax)
                .type(c.type)
                .auxiliaryTypes(c.auxiliaryTypes)
                .converters(c.converters);
        p.splitRegex(c.splitRegex)
                .splitRegexSynopsisLabel(c.splitRegexSynopsisLabel)
                .hidden(c.hidden);
        p.inherited(c.inherited).defaultValue(c.defaultValue);
        p.mapFallbackValue(c.mapFallbackValue); // returns the builder as its base type, which is not public
        p.hasInitialValue(c.hasInitialValue).initialValue(c.initialValue).showDefaultValue(c.showDefaultValue);
        p.completionCandidates(c.completionCandidates).scopeType(c.scopeType);
        return p.getter(binding).setter(binding).userObject(binding.member).build();
    }

    /** What options and parameters both have, read in the model's order. */
    private record Common(
            boolean required,
            boolean interactive,
            boolean echo,
            String prompt,
            String[] description,
            String descriptionKey,
            CommandLine.Range arity,
            String paramLabel,
            boolean hideParamSyntax,
            Class<?> type,
            Class<?>[] auxiliaryTypes,
            ITypeConverter<?>[] converters,
            String splitRegex,
            String splitRegexSynopsisLabel,
            boolean hidden,
            boolean inherited,
            String mapFallbackValue,
            String defaultValue,
            boolean hasInitialValue,
            Object initialValue,
            CommandLine.Help.Visibility showDefaultValue,
            List<String> completionCandidates,
            CommandLine.ScopeType scopeType) {
        static Common read(Tokens tokens, Binding binding) {
            boolean required = tokens.flag();
            boolean interactive = tokens.flag();
            boolean echo = tokens.flag();
            String prompt = tokens.nullable();
            String[] description = tokens.list();
            String descriptionKey = tokens.nullable();
            CommandLine.Range arity = CommandLine.Range.valueOf(tokens.next()).unspecified(tokens.flag());
            String paramLabel = tokens.nullable();
            boolean hideParamSyntax = tokens.flag();
            Class<?> type = classNamed(tokens.next());
            String[] auxiliary = tokens.list();
            Class<?>[] types = new Class<?>[auxiliary.length];
            for (int i = 0; i < types.length; i++) {
                types[i] = classNamed(auxiliary[i]);
            }
            String[] converterNames = tokens.list();
            ITypeConverter<?>[] converters = new ITypeConverter<?>[converterNames.length];
            for (int i = 0; i < converters.length; i++) {
                converters[i] = (ITypeConverter<?>) create(classNamed(converterNames[i]));
            }
            String splitRegex = tokens.nullable();
            String splitRegexSynopsisLabel = tokens.nullable();
            boolean hidden = tokens.flag();
            boolean inherited = tokens.flag();
            String mapFallbackValue = tokens.nullable();
            String defaultValue = tokens.nullable();
            boolean hasInitialValue = tokens.flag();
            Object initialValue = hasInitialValue ? binding.get() : null;
            CommandLine.Help.Visibility showDefaultValue = CommandLine.Help.Visibility.valueOf(tokens.next());
            String candidates = tokens.nullable();
            String[] candidateList = candidates == null ? null : Tokens.split(candidates);
            return new Common(
                    required,
                    interactive,
                    echo,
                    prompt,
                    description,
                    descriptionKey,
                    arity,
                    paramLabel,
                    hideParamSyntax,
                    type,
                    types,
                    converters,
                    splitRegex,
                    splitRegexSynopsisLabel,
                    hidden,
                    inherited,
                    mapFallbackValue,
                    defaultValue,
                    hasInitialValue,
                    initialValue,
                    showDefaultValue,
                    candidateList == null ? null : List.of(candidateList),
                    CommandLine.ScopeType.valueOf(tokens.next()));
        }
    }

    private static AccessibleObject member(Class<?> holder, String member) {
        String[] parts = member.split(" ");
        if (parts[0].equals("field")) {
            return field(holder, parts[1]);
        }
        for (Class<?> type = holder; type != null; type = type.getSuperclass()) {
            for (Method method : type.getDeclaredMethods()) {
                if (method.getName().equals(parts[1])
                        && method.getParameterCount() == 1
                        && method.getParameterTypes()[0].getName().equals(parts[2])) {
                    method.setAccessible(true);
                    return method;
                }
            }
        }
        throw new IllegalStateException("no method " + member + " in " + holder.getName());
    }

    private static Field field(Class<?> holder, String name) {
        for (Class<?> type = holder; type != null; type = type.getSuperclass()) {
            try {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                return field;
            } catch (NoSuchFieldException e) {
                // declared further up
            }
        }
        throw new IllegalStateException("no field " + name + " in " + holder.getName());
    }

    private static Class<?> classNamed(String name) {
        return switch (name) {
            case "boolean" -> boolean.class;
            case "byte" -> byte.class;
            case "char" -> char.class;
            case "short" -> short.class;
            case "int" -> int.class;
            case "long" -> long.class;
            case "float" -> float.class;
            case "double" -> double.class;
            default -> {
                try {
                    yield Class.forName(name, false, CommandModel.class.getClassLoader());
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("a command model names a class that is not here: " + name, e);
                }
            }
        };
    }

    private static Object create(Class<?> type) {
        try {
            Constructor<?> constructor = type.getDeclaredConstructor();
            constructor.setAccessible(true);
            return constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new IllegalStateException("cannot make " + type.getName(), e.getCause());
        } catch (ReflectiveOperationException e) {
            throw new IllegalStateException("cannot make " + type.getName(), e);
        }
    }

    /**
     * An option's field or setter method on the object that holds it, as picocli binds an annotated one: a setter's
     * value is the last one it was given, and what a setter throws is a usage error of the command's, as picocli
     * makes it.
     */
    private static final class Binding implements IGetter, ISetter {
        private final CommandSpec command;
        private final Object holder;
        private final AccessibleObject member;
        private Object last;

        Binding(CommandSpec command, Object holder, AccessibleObject member) {
            this.command = command;
            this.holder = holder;
            this.member = member;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T get() {
            if (member instanceof Field field) {
                try {
                    return (T) field.get(holder);
                } catch (Exception e) {
                    throw new CommandLine.PicocliException("Could not get value for field " + field, e);
                }
            }
            return (T) last;
        }

        @Override
        @SuppressWarnings("unchecked")
        public <T> T set(T value) {
            T previous = get();
            if (member instanceof Field field) {
                try {
                    field.set(holder, value);
                } catch (Exception e) {
                    throw new CommandLine.PicocliException(
                            "Could not set value for field " + field + " to " + value, e);
                }
                return previous;
            }
            Method method = (Method) member;
            try {
                method.invoke(holder, value);
                last = value;
                return previous;
            } catch (InvocationTargetException e) {
                if (e.getCause() instanceof CommandLine.PicocliException picocli) {
                    throw picocli;
                }
                throw refused(method, value, e.getCause());
            } catch (Exception e) {
                throw refused(method, value, e);
            }
        }

        private CommandLine.ParameterException refused(Method method, Object value, Throwable cause) {
            return new CommandLine.ParameterException(
                    command.commandLine(), "Could not invoke " + method + " with " + value + " (" + cause + ")", cause);
        }

        @Override
        public String toString() {
            return ((Member) member).getDeclaringClass().getSimpleName() + "." + ((Member) member).getName();
        }
    }

    /** The tokens of a model, read in order. */
    private static final class Tokens {
        private final String text;
        private int at;

        Tokens(String text) {
            this.text = text;
        }

        String next() {
            int end = text.indexOf(END, at);
            if (end < 0) {
                throw new IllegalStateException("a command model ends before its last token");
            }
            String token = text.substring(at, end);
            at = end + 1;
            return token;
        }

        String nullable() {
            String token = next();
            return token.equals(NULL) ? null : token;
        }

        boolean flag() {
            return next().equals("1");
        }

        int count() {
            return Integer.parseInt(next());
        }

        String[] list() {
            return split(next());
        }

        static String[] split(String list) {
            String[] parts = list.split(String.valueOf(ITEM), -1);
            if (Integer.parseInt(parts[0]) != parts.length - 1) {
                throw new IllegalStateException("a command model's list is cut short: " + list);
            }
            return Arrays.copyOfRange(parts, 1, parts.length);
        }

        /** Whether every token was read: a model of another layout would read out of step. */
        void checkEnd() {
            if (at != text.length()) {
                throw new IllegalStateException("a command model has " + (text.length() - at) + " chars unread");
            }
        }
    }
}
