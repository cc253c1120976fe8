package dev.pools.cli;

import dev.pools.layout.LayoutException;
import dev.pools.layout.LayoutFile;
import dev.pools.layout.LayoutPrinter;
import dev.pools.layout.Layouts;
import dev.pools.layout.PoolsConfig;
import dev.pools.memory.DirectMemory;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Parameters;

@Command(
        name = "check",
        mixinStandardHelpOptions = true,
        description =
                "Validates a layout file and prints it normalised: every default filled in, every size in"
                        + " bytes and human units, and the pools a preset expands to. The output is itself a valid layout file.")
final class CheckCommand implements Callable<Integer> {

    @Parameters(paramLabel = "LAYOUT", description = "The layout file (YAML).")
    Path file;

    @Override
    public Integer call() {
        long defaultMaxPageSize = Layouts.defaultMaxPageSize(DirectMemory.limit());
        PoolsConfig config;
        try {
            config = LayoutFile.read(file, defaultMaxPageSize);
        } catch (LayoutException e) {
            throw new BadInput(e.getMessage());
        }
        System.out.println("# " + file + ": valid");
        System.out.print(LayoutPrinter.print(config, defaultMaxPageSize));
        return ExitStatus.DONE;
    }
}
