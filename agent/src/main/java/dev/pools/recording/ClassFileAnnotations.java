package dev.pools.recording;

import java.io.IOException;
import java.io.InputStream;
import java.lang.annotation.Annotation;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.bytebuddy.jar.asm.AnnotationVisitor;
import net.bytebuddy.jar.asm.ClassReader;
import net.bytebuddy.jar.asm.ClassVisitor;
import net.bytebuddy.jar.asm.FieldVisitor;
import net.bytebuddy.jar.asm.Opcodes;
import net.bytebuddy.jar.asm.Type;

/**
 * The runtime annotations of a class and of its fields, read from its class file. Reflection would
 * give the same, but each annotation type it returns is a proxy class defined at its first use, and
 * on the recording's start that cost more than writing the whole file's declarations.
 *
 * <p>Values are kept as text, an array's elements in order; an annotation written without its value
 * has an empty list (its default is the reader's to know).
 */
final class ClassFileAnnotations {

    /** Annotation type name to values, of the class itself. */
    private final Map<String, List<String>> ofClass = new HashMap<>();

    /** Field name to its annotations. */
    private final Map<String, Map<String, List<String>>> ofFields = new HashMap<>();

    private ClassFileAnnotations() {}

    /** Reads the class file of {@code c}, found as a resource beside it. */
    static ClassFileAnnotations of(Class<?> c) throws IOException {
        String name = c.getName();
        String resource = name.substring(name.lastIndexOf('.') + 1) + ".class";
        byte[] bytes;
        try (InputStream in = c.getResourceAsStream(resource)) {
            if (in == null) {
                throw new IOException("no class file for " + name);
            }
            bytes = in.readAllBytes();
        }
        ClassFileAnnotations a = new ClassFileAnnotations();
        new ClassReader(bytes)
                .accept(a.new Reader(), ClassReader.SKIP_CODE | ClassReader.SKIP_DEBUG | ClassReader.SKIP_FRAMES);
        return a;
    }

    /** The values of the class's annotation of type {@code type}; null when it has none. */
    List<String> ofClass(Class<? extends Annotation> type) {
        return ofClass.get(type.getName());
    }

    /** The values of field {@code field}'s annotation of type {@code type}; null when it has none. */
    List<String> ofField(String field, Class<? extends Annotation> type) {
        Map<String, List<String>> m = ofFields.get(field);
        return m == null ? null : m.get(type.getName());
    }

    private static AnnotationVisitor collect(Map<String, List<String>> into, String descriptor) {
        List<String> values = new ArrayList<>();
        into.put(Type.getType(descriptor).getClassName(), values);
        return new Values(values);
    }

    private final class Reader extends ClassVisitor {
        Reader() {
            super(Opcodes.ASM9);
        }

        @Override
        public AnnotationVisitor visitAnnotation(String descriptor, boolean visible) {
            return visible ? collect(ofClass, descriptor) : null;
        }

        @Override
        public FieldVisitor visitField(int access, String name, String descriptor, String signature, Object value) {
            Map<String, List<String>> annotations = new HashMap<>();
            ofFields.put(name, annotations);
            return new FieldVisitor(Opcodes.ASM9) {
                @Override
                public AnnotationVisitor visitAnnotation(String annotation, boolean visible) {
                    return visible ? collect(annotations, annotation) : null;
                }
            };
        }
    }

    /** Collects an annotation's {@code value}, one element or an array's. */
    private static final class Values extends AnnotationVisitor {
        private final List<String> values;

        Values(List<String> values) {
            super(Opcodes.ASM9);
            this.values = values;
        }

        @Override
        public void visit(String name, Object value) {
            if (name == null || name.equals("value")) {
                values.add(String.valueOf(value));
            }
        }

        @Override
        public AnnotationVisitor visitArray(String name) {
            return name.equals("value") ? this : null;
        }
    }
}
