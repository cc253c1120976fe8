package dev.pools.cli;

import java.io.IOException;
import java.nio.file.AccessDeniedException;
import java.nio.file.FileSystemException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Set;

/**
 * A command's {@code -o} file, written whole or not at all: through a temporary file beside it,
 * renamed over it once complete. A failure (a full disk, a file size limit, no permission) leaves
 * an existing file as it was, and is one line naming the file; so is a target that is one of the
 * command's own inputs, a directory, or not a regular file. {@code -o -} is standard output.
 */
final class OutputFile {

    /** What a new file gets where the file system has POSIX permissions: as with a umask of 022. */
    private static final Set<PosixFilePermission> NEW_FILE = PosixFilePermissions.fromString("rw-r--r--");

    private OutputFile() {}

    /** Whether {@code -o} names standard output: {@code -}, as for most command-line tools. */
    static boolean isStandardOutput(Path output) {
        return output.toString().equals("-");
    }

    /** Writes {@code text} to the file, or to standard output for {@code -o -}; says which on stderr for a file. */
    static void write(Path output, String text, List<Path> inputs) {
        if (isStandardOutput(output)) {
            System.out.print(text);
            System.out.flush();
            return;
        }
        writeFile(output, text, inputs);
        System.err.println("pools: wrote " + output);
    }

    private static void writeFile(Path output, String text, List<Path> inputs) {
        Path target = output.toAbsolutePath().normalize();
        for (Path in : inputs) {
            if (same(target, in)) {
                throw new BadInput("-o " + output + ": is " + in + ", which this command reads; write to another file");
            }
        }
        if (Files.isDirectory(target)) {
            throw new BadInput("-o " + output + ": is a directory");
        }
        if (Files.exists(target, LinkOption.NOFOLLOW_LINKS)
                && !Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
            throw new BadInput("-o " + output + ": is not a regular file");
        }
        Path dir = target.getParent();
        if (dir == null || !Files.isDirectory(dir)) {
            throw new BadInput("-o " + output + ": no such directory: " + dir);
        }
        if (Files.exists(target) && !Files.isWritable(target)) {
            // The rename below needs only the directory's permission: a file one may not write was replaced (a review).
            throw new BadInput("-o " + output + ": cannot write it (permission denied); the file is as it was");
        }
        Path temp = null;
        try {
            temp = Files.createTempFile(dir, "." + target.getFileName(), ".tmp");
            Files.writeString(temp, text);
            PosixFileAttributeView posix = Files.getFileAttributeView(temp, PosixFileAttributeView.class);
            if (posix != null) {
                posix.setPermissions(Files.exists(target) ? Files.getPosixFilePermissions(target) : NEW_FILE);
            }
            Files.move(temp, target, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
        } catch (IOException | UnsupportedOperationException e) {
            if (temp != null) {
                try {
                    Files.deleteIfExists(temp);
                } catch (IOException ignored) {
                    // The failure below is what the user needs to know.
                }
            }
            throw new BadInput("-o " + output + ": cannot write it (" + reason(e) + "); "
                    + (Files.exists(target) ? "the file is as it was" : "no file was written"));
        }
    }

    private static boolean same(Path target, Path input) {
        try {
            if (Files.exists(target) && Files.exists(input)) {
                return Files.isSameFile(target, input);
            }
        } catch (IOException e) {
            // Compared by name below.
        }
        return target.equals(input.toAbsolutePath().normalize());
    }

    private static String reason(Exception e) {
        if (e instanceof FileSystemException f && f.getReason() != null) {
            return f.getReason();
        }
        // Without a reason, their message is only the path: the temporary file's, which the user never named.
        if (e instanceof AccessDeniedException) {
            return "permission denied";
        }
        if (e instanceof NoSuchFileException) {
            return "no such file or directory";
        }
        if (e instanceof FileSystemException) {
            return e.getClass().getSimpleName();
        }
        return e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    }
}
