package dev.pools.cli;

import picocli.CommandLine;
import picocli.CommandLine.Command;

/**
 * {@code java -jar pools.jar VERB ...}: reads recordings and layout files offline. One class per verb.
 */
@Command(
        name = "pools.jar",
        mixinStandardHelpOptions = true,
        versionProvider = PoolsCli.Version.class,
        description = "Reads pools recordings and layout files.%n"
                + "Run the agent with: java -javaagent:pools.jar=layout.yaml -jar app.jar",
        subcommands = {
            ReportCommand.class,
            SuggestCommand.class,
            HtmlCommand.class,
            CheckCommand.class,
            AttachCommand.class,
            CommandLine.HelpCommand.class
        },
        exitCodeListHeading = "%nExit status:%n",
        exitCodeList = {"0:done", "1:an internal error", "2:bad input: an unreadable or foreign file, an invalid layout"
        })
public final class PoolsCli implements Runnable {

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    public static void main(String[] args) {
        int status = run(args);
        // Standard output swallows its write errors: a full disk, a file size limit (ulimit -f) or a
        // closed pipe would leave a layout cut short, with exit status 0.
        System.out.flush();
        if (System.out.checkError()) {
            System.err.println("pools: cannot write standard output (a full disk, a file size limit, a closed"
                    + " pipe): what it received is cut short");
            status = status == ExitStatus.DONE ? ExitStatus.BAD_INPUT : status;
        }
        System.exit(status);
    }

    /** Runs a verb and returns its exit status. */
    public static int run(String... args) {
        CommandLine cli = new CommandLine(new PoolsCli());
        // A bad option or argument is one line, as any bad input: what is wrong, and where the help is.
        cli.setParameterExceptionHandler((e, given) -> {
            CommandLine where = e.getCommandLine();
            String verb = where.getParent() == null ? "" : where.getCommandName() + " ";
            String near = "";
            if (e instanceof CommandLine.UnmatchedArgumentException u
                    && !u.getSuggestions().isEmpty()) {
                near = " (did you mean " + String.join(" or ", u.getSuggestions()) + "?)";
            }
            where.getErr()
                    .println("pools: " + e.getMessage().lines().findFirst().orElse("bad arguments") + near
                            + "; see java -jar pools.jar " + verb + "--help");
            return ExitStatus.BAD_INPUT;
        });
        cli.setExecutionExceptionHandler((e, commandLine, parseResult) -> {
            if (e instanceof BadInput bad) {
                commandLine.getErr().println("pools: " + bad.getMessage());
                return ExitStatus.BAD_INPUT;
            }
            commandLine.getErr().println("pools: internal error: " + e);
            e.printStackTrace(commandLine.getErr());
            return ExitStatus.INTERNAL;
        });
        return cli.execute(args);
    }

    @Override
    public void run() {
        spec.commandLine().usage(spec.commandLine().getOut());
    }

    /** The version in the jar's manifest. */
    static final class Version implements CommandLine.IVersionProvider {
        @Override
        public String[] getVersion() {
            String v = PoolsCli.class.getPackage().getImplementationVersion();
            return new String[] {"pools " + (v == null ? "(development build)" : v)};
        }
    }
}
