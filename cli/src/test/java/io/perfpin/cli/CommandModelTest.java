package io.perfpin.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;
import picocli.CommandLine.ITypeConverter;
import picocli.CommandLine.Model.ArgSpec;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Model.ITypeInfo;
import picocli.CommandLine.Model.OptionSpec;
import picocli.CommandLine.Model.PositionalParamSpec;

/** The model the build writes for {@code stat} is the one picocli makes from its annotations. */
class CommandModelTest {
    /** Command lines of every kind stat takes, good and bad. */
    private static final List<List<String>> ARGUMENTS = List.of(
            List.of(),
            List.of("123"),
            List.of("--pid", "123", "--duration", "250ms", "--interval", "50ms"),
            List.of("1", "--threads", "worker-.*|parked-.*", "--events", "task-clock,page-faults", "--format", "csv"),
            List.of("1", "--pin", "worker-.*@0", "--pin", "io-.*@any", "--fds", "200"),
            List.of("1", "--columns", "task-clock,ipc", "--sort", "tid", "--top", "3", "--wide"),
            List.of("1", "--output", "out.json", "--format", "json", "--virtual", "v-.*"),
            List.of("1", "--help"),
            List.of("1", "-V"),
            List.of("1", "2"),
            List.of("1", "--top", "0"),
            List.of("1", "--format", "xml"),
            List.of("1", "--events", "no-such-event"),
            List.of("1", "--duration"),
            List.of("1", "--colums", "ipc"),
            List.of("1", "--sort", "thread", "--fds", "150%"),
            List.of("1", "--wide=false", "--help=true"),
            List.of("1", "-V=true"),
            List.of("1", "--top=2", "--format=json"));

    @Test
    void theBuildWroteTheModelOfTheAnnotationsAsTheyAreNow() throws Exception {
        Class<?> written;
        try {
            written = Class.forName(StatCommand.class.getName() + "Model");
        } catch (ClassNotFoundException e) {
            throw new AssertionError("no model written: build with mvn process-classes (or later phases)", e);
        }
        @SuppressWarnings("unchecked")
        Supplier<String> text =
                (Supplier<String>) written.getDeclaredConstructor().newInstance();
        assertEquals(CommandModel.describe(new StatCommand()), text.get(), "rebuild: the annotations changed");
    }

    @Test
    void everyOptionAndParameterHasThePropertiesPicocliGivesItFromTheAnnotations() {
        CommandSpec annotated = new CommandLine(new StatCommand()).getCommandSpec();
        CommandSpec modelled = modelled(new StatCommand());
        assertEquals(annotated.name(), modelled.name());
        assertEquals(
                List.of(annotated.usageMessage().description()),
                List.of(modelled.usageMessage().description()));
        assertEquals(mixins(annotated), mixins(modelled));
        assertEquals(annotated.args().size(), modelled.args().size());
        for (int i = 0; i < annotated.args().size(); i++) {
            assertEquals(
                    properties(annotated.args().get(i)),
                    properties(modelled.args().get(i)));
        }
    }

    @Test
    void theUsageIsTheSame() {
        assertEquals(usage(new CommandLine(new StatCommand())), usage(new CommandLine(modelled(new StatCommand()))));
    }

    @Test
    void parsingSetsTheSameValuesAndRefusesTheSameWay() {
        for (List<String> args : ARGUMENTS) {
            assertEquals(parsed(new StatCommand(), false, args), parsed(new StatCommand(), true, args), args::toString);
        }
        assertNotEquals(
                parsed(new StatCommand(), true, ARGUMENTS.get(2)),
                parsed(new StatCommand(), true, ARGUMENTS.get(3)),
                "what is compared differs where the arguments do");
    }

    @Test
    void aTokenThatWouldBreakTheModelIsRefusedWhenItIsWritten() {
        assertThrows(IllegalArgumentException.class, () -> CommandModel.describe(new Separator()));
    }

    @Test
    void aListOfOneEmptyStringStaysOne() {
        CommandSpec spec = CommandModel.read(CommandModel.describe(new BlankLine()), new BlankLine());
        assertEquals(List.of(""), List.of(spec.usageMessage().description()));
    }

    @Test
    void aModelCutShortIsRefusedAndTheAnnotationsAreReadInstead() {
        String model = CommandModel.describe(new StatCommand());
        assertThrows(
                IllegalStateException.class,
                () -> CommandModel.read(
                        model.substring(0, model.lastIndexOf('\0', model.length() - 2) + 1), new StatCommand()));
        assertThrows(IllegalStateException.class, () -> CommandModel.read(model + "extra\0", new StatCommand()));
    }

    @CommandLine.Command(name = "bad", description = "a\0b")
    static final class Separator implements Runnable {
        @Override
        public void run() {}
    }

    @CommandLine.Command(name = "blank", description = "")
    static final class BlankLine implements Runnable {
        @Override
        public void run() {}
    }

    private static CommandSpec modelled(StatCommand command) {
        return CommandModel.read(CommandModel.describe(new StatCommand()), command);
    }

    private static String usage(CommandLine command) {
        command.setCommandName("perfpin stat");
        command.getCommandSpec().versionProvider(new Version());
        return command.getUsageMessage(CommandLine.Help.Ansi.OFF);
    }

    private static Map<String, String> mixins(CommandSpec spec) {
        Map<String, String> mixins = new LinkedHashMap<>();
        spec.mixins()
                .forEach((name, mixin) ->
                        mixins.put(name, mixin.userObject().getClass().getName()));
        return mixins;
    }

    /** Everything picocli's model says of an option or parameter, as text, bindings aside. */
    private static List<String> properties(ArgSpec arg) {
        List<String> properties = new ArrayList<>();
        if (arg instanceof OptionSpec option) {
            properties.addAll(List.of(
                    Arrays.toString(option.names()),
                    "help " + option.help(),
                    "usageHelp " + option.usageHelp(),
                    "versionHelp " + option.versionHelp(),
                    "negatable " + option.negatable(),
                    "fallbackValue " + option.fallbackValue(),
                    "order " + option.order()));
        } else {
            properties.add("index " + ((PositionalParamSpec) arg).index());
        }
        List<String> converters = new ArrayList<>();
        for (ITypeConverter<?> converter : arg.converters()) {
            converters.add(converter.getClass().getName());
        }
        List<String> candidates = new ArrayList<>();
        if (arg.completionCandidates() != null) {
            arg.completionCandidates().forEach(candidates::add);
        }
        ITypeInfo type = arg.typeInfo();
        properties.addAll(List.of(
                "required " + arg.required(),
                "interactive " + arg.interactive(),
                "echo " + arg.echo(),
                "prompt " + arg.prompt(),
                "description " + Arrays.toString(arg.description()),
                "rendered " + Arrays.toString(arg.renderedDescription()),
                "descriptionKey " + arg.descriptionKey(),
                "arity " + arg.arity() + (arg.arity().isUnspecified() ? " (not given)" : ""),
                "paramLabel " + arg.paramLabel(),
                "hideParamSyntax " + arg.hideParamSyntax(),
                "type " + arg.type().getName(),
                "auxiliaryTypes " + Arrays.toString(arg.auxiliaryTypes()),
                // Not its declaration's type arguments, which picocli reads only while it reads annotations (to
                // check argument groups); what a list holds, parsing takes from the auxiliary types, above.
                "typeInfo " + type.getClassName() + " multi "
                        + type.isMultiValue() + " collection " + type.isCollection() + " array " + type.isArray()
                        + " map " + type.isMap() + " optional " + type.isOptional() + " boolean " + type.isBoolean()
                        + " enum " + type.isEnum(),
                "converters " + converters,
                "splitRegex " + arg.splitRegex(),
                "splitRegexSynopsisLabel " + arg.splitRegexSynopsisLabel(),
                "hidden " + arg.hidden(),
                "inherited " + arg.inherited(),
                "mapFallbackValue " + arg.mapFallbackValue(),
                "defaultValue " + arg.defaultValue(),
                "defaultValueString " + arg.defaultValueString(),
                "hasInitialValue " + arg.hasInitialValue(),
                "initialValue " + arg.initialValue(),
                "showDefaultValue " + arg.showDefaultValue(),
                "completionCandidates " + (arg.completionCandidates() == null ? null : candidates),
                "scopeType " + arg.scopeType(),
                "preprocessor " + arg.preprocessor().getClass().getName(),
                "parameterConsumer " + arg.parameterConsumer(),
                "member " + arg.userObject()));
        return properties;
    }

    /** What parsing {@code args} set in {@code command} and its mixins, or how it refused them. */
    private static String parsed(StatCommand command, boolean modelled, List<String> args) {
        CommandLine line = modelled ? new CommandLine(modelled(command)) : new CommandLine(command);
        line.setCommandName("perfpin stat");
        try {
            line.parseArgs(args.toArray(new String[0]));
        } catch (CommandLine.ParameterException e) {
            return "refused: " + e.getClass().getSimpleName() + ": " + e.getMessage() + " (" + e.getCause() + ")";
        }
        return String.join(
                "; ",
                "pid " + command.positionalPid,
                "--pid " + command.pidOption,
                "threads " + command.threads.regex,
                "pins " + command.pins.rules(),
                "events " + command.events.eventList().names(),
                "duration " + command.duration.duration,
                "interval " + command.interval.interval,
                "fds " + command.fds,
                "virtual " + command.virtual,
                "columns " + command.view.columns,
                "wide " + command.view.wide,
                "sort " + command.view.sort,
                "top " + command.view.top,
                "format " + command.output.format,
                "output " + command.output.output,
                "help " + line.isUsageHelpRequested(),
                "version " + line.isVersionHelpRequested());
    }
}
