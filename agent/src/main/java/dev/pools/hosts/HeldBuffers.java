package dev.pools.hosts;

import java.lang.reflect.Field;

/**
 * The buffer a host object holds, as the close hooks read it (see {@link CloseHooks}):
 * {@code PtNDArray.dataRef}, and {@code OnnxTensor.buffer} while the tensor is not closed. Fields
 * are found once per class; a class without them holds nothing.
 */
public final class HeldBuffers {

    private static final ClassValue<Field[]> FIELDS = new ClassValue<>() {
        @Override
        protected Field[] computeValue(Class<?> type) {
            for (Class<?> c = type; c != null; c = c.getSuperclass()) {
                switch (c.getName()) {
                    case "ai.djl.pytorch.engine.PtNDArray":
                        return fields(c, "dataRef", null);
                    case "ai.onnxruntime.OnnxTensor":
                        return fields(c, "buffer", "closed");
                    default:
                        break;
                }
            }
            return new Field[0];
        }
    };

    private HeldBuffers() {
    }

    /** The buffer field, and the "closed" flag that empties it; none when the shape is not there. */
    private static Field[] fields(Class<?> owner, String buffer, String closed) {
        try {
            Field b = owner.getDeclaredField(buffer);
            b.setAccessible(true);
            if (closed == null) {
                return new Field[] {b};
            }
            Field c = findField(owner, closed);
            c.setAccessible(true);
            return new Field[] {b, c};
        } catch (ReflectiveOperationException | RuntimeException e) {
            return new Field[0];
        }
    }

    private static Field findField(Class<?> type, String name) throws NoSuchFieldException {
        for (Class<?> c = type; c != null; c = c.getSuperclass()) {
            try {
                return c.getDeclaredField(name);
            } catch (NoSuchFieldException e) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(name);
    }

    /** The buffer {@code owner} holds now, or null. */
    public static Object held(Object owner) throws IllegalAccessException {
        Field[] f = FIELDS.get(owner.getClass());
        if (f.length == 0 || (f.length == 2 && f[1].getBoolean(owner))) {
            return null;
        }
        return f[0].get(owner);
    }
}
