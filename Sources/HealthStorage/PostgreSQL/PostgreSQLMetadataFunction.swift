/// `hs_meta(metadata bytea, leaf bytea) → boolean` in PL/pgSQL: the PostgreSQL twin of SQLite's
/// `hs_meta` (MetadataSQLFunctions), reading the same encodings (`MetadataCoding`, `MetadataLeaf`) and
/// comparing by the same rules (`MetadataOrdering`): strings by UTF-8 bytes, dates and numbers exactly
/// (an integer against a double without rounding either), incomparable values only "not equal".
/// Units are not converted here: a quantity operand arrives converted into each unit stored in the
/// owner's metadata (`MetadataLeaf.compareConverted`, kind 4).
enum PostgreSQLMetadataFunction {
    static let definition = #"""

    -- An unsigned LEB128 varint at pos (0-based): {value, next position}.
    CREATE FUNCTION hs_varint(b bytea, pos integer) RETURNS numeric[] LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    DECLARE v numeric := 0; shift numeric := 1; byte integer;
    BEGIN
        LOOP
            byte := get_byte(b, pos);
            pos := pos + 1;
            v := v + (byte & 127) * shift;
            EXIT WHEN byte < 128;
            shift := shift * 128;
        END LOOP;
        RETURN ARRAY[v, pos];
    END $$;

    -- A little-endian IEEE double at pos, rebuilt exactly from its bits.
    CREATE FUNCTION hs_double(b bytea, pos integer) RETURNS double precision LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    DECLARE bits numeric := 0; i integer; sign integer; exponent integer; mantissa numeric;
    BEGIN
        FOR i IN REVERSE 7..0 LOOP bits := bits * 256 + get_byte(b, pos + i); END LOOP;
        sign := CASE WHEN bits >= 9223372036854775808 THEN -1 ELSE 1 END;
        IF sign < 0 THEN bits := bits - 9223372036854775808; END IF;
        exponent := floor(bits / 4503599627370496)::integer;
        mantissa := mod(bits, 4503599627370496);
        IF exponent = 2047 THEN
            RETURN CASE WHEN mantissa = 0 THEN sign * 'Infinity'::double precision ELSE 'NaN'::double precision END;
        ELSIF exponent = 0 THEN
            RETURN sign * mantissa::double precision * power(2::double precision, -1074);
        END IF;
        RETURN sign * (mantissa + 4503599627370496)::double precision * power(2::double precision, exponent - 1075);
    END $$;

    -- One encoded metadata value at pos: its tag, text bytes (string; a quantity's unit), integer
    -- (int, bool, date) or double (double; a quantity's value), and where the next value starts.
    CREATE FUNCTION hs_meta_value(b bytea, pos integer, OUT tag integer, OUT txt bytea, OUT num numeric,
                                  OUT dbl double precision, OUT next integer) LANGUAGE plpgsql IMMUTABLE STRICT AS $$
    DECLARE v numeric[]; len integer;
    BEGIN
        tag := get_byte(b, pos);
        pos := pos + 1;
        IF tag = 1 THEN
            v := hs_varint(b, pos); len := v[1]; txt := substring(b FROM v[2]::integer + 1 FOR len); next := v[2] + len;
        ELSIF tag = 2 THEN
            dbl := hs_double(b, pos); next := pos + 8;
        ELSIF tag IN (3, 5) THEN
            v := hs_varint(b, pos); next := v[2];
            num := CASE WHEN mod(v[1], 2) = 0 THEN v[1] / 2 ELSE -(v[1] + 1) / 2 END;
        ELSIF tag = 4 THEN
            num := get_byte(b, pos); next := pos + 1;
        ELSIF tag = 6 THEN
            dbl := hs_double(b, pos);
            v := hs_varint(b, pos + 8); len := v[1]; txt := substring(b FROM v[2]::integer + 1 FOR len); next := v[2] + len;
        ELSE
            RAISE EXCEPTION 'corrupt metadata value tag % in the store', tag;
        END IF;
    END $$;

    -- The order of two values (-1, 0, 1), or NULL when they cannot be compared.
    CREATE FUNCTION hs_meta_order(at integer, atxt bytea, anum numeric, adbl double precision,
                                  bt integer, btxt bytea, bnum numeric, bdbl double precision) RETURNS integer
    LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE whole double precision;
    BEGIN
        IF at = 1 AND bt = 1 THEN
            RETURN CASE WHEN atxt < btxt THEN -1 WHEN atxt > btxt THEN 1 ELSE 0 END;
        ELSIF at = 5 AND bt = 5 THEN
            RETURN sign(anum - bnum)::integer;
        ELSIF at = 6 AND bt = 6 THEN
            IF atxt <> btxt OR adbl = 'NaN' OR bdbl = 'NaN' THEN RETURN NULL; END IF;
            RETURN CASE WHEN adbl < bdbl THEN -1 WHEN adbl > bdbl THEN 1 ELSE 0 END;
        ELSIF at IN (3, 4) AND bt IN (3, 4) THEN
            RETURN sign(anum - bnum)::integer;
        ELSIF at = 2 AND bt = 2 THEN
            IF adbl = 'NaN' OR bdbl = 'NaN' THEN RETURN NULL; END IF;
            RETURN CASE WHEN adbl < bdbl THEN -1 WHEN adbl > bdbl THEN 1 ELSE 0 END;
        ELSIF at IN (3, 4) AND bt = 2 THEN
            IF bdbl = 'NaN' THEN RETURN NULL; END IF;
            IF bdbl >= 9223372036854775808 THEN RETURN -1; END IF;
            IF bdbl < -9223372036854775808 THEN RETURN 1; END IF;
            whole := floor(bdbl);
            IF anum <> whole::numeric THEN RETURN sign(anum - whole::numeric)::integer; END IF;
            RETURN CASE WHEN bdbl > whole THEN -1 ELSE 0 END;
        ELSIF at = 2 AND bt IN (3, 4) THEN
            RETURN -hs_meta_order(bt, btxt, bnum, bdbl, at, atxt, anum, adbl);
        END IF;
        RETURN NULL;
    END $$;

    CREATE FUNCTION hs_meta_holds(ord integer, op integer) RETURNS boolean LANGUAGE sql IMMUTABLE AS $$
        SELECT CASE WHEN ord IS NULL THEN op = 6
                    WHEN op = 1 THEN ord < 0 WHEN op = 2 THEN ord <= 0 WHEN op = 3 THEN ord > 0
                    WHEN op = 4 THEN ord >= 0 WHEN op = 5 THEN ord = 0 ELSE ord <> 0 END
    $$;

    -- Whether stored metadata matches one predicate leaf: exists (1), compare (2), in (3) or a
    -- quantity comparison converted beforehand into each stored unit (4).
    CREATE FUNCTION hs_meta(metadata bytea, leaf bytea) RETURNS boolean LANGUAGE plpgsql IMMUTABLE AS $$
    DECLARE v numeric[]; kind integer; key bytea; pos integer; count integer; i integer; len integer;
            stored record; operand record; found boolean := false; op integer; unit bytea;
    BEGIN
        kind := get_byte(leaf, 0);
        v := hs_varint(leaf, 1); len := v[1]; key := substring(leaf FROM v[2]::integer + 1 FOR len); pos := v[2] + len;
        IF metadata IS NULL THEN RETURN false; END IF;
        v := hs_varint(metadata, 0); count := v[1];
        DECLARE mpos integer := v[2]; k bytea;
        BEGIN
            FOR i IN 1..count LOOP
                v := hs_varint(metadata, mpos); len := v[1]; k := substring(metadata FROM v[2]::integer + 1 FOR len);
                SELECT * INTO stored FROM hs_meta_value(metadata, (v[2] + len)::integer);
                IF k = key THEN found := true; EXIT; END IF;
                mpos := stored.next;
            END LOOP;
        END;
        IF NOT found THEN RETURN false; END IF;
        IF kind = 1 THEN RETURN true; END IF;
        IF kind = 4 THEN
            op := get_byte(leaf, pos);
            IF stored.tag <> 6 THEN RETURN op = 6; END IF;
            v := hs_varint(leaf, pos + 1); count := v[1]; pos := v[2];
            FOR i IN 1..count LOOP
                v := hs_varint(leaf, pos); len := v[1]; unit := substring(leaf FROM v[2]::integer + 1 FOR len); pos := v[2] + len;
                IF unit = stored.txt THEN
                    RETURN hs_meta_holds(hs_meta_order(6, stored.txt, NULL, stored.dbl, 6, unit, NULL, hs_double(leaf, pos)), op);
                END IF;
                pos := pos + 8;
            END LOOP;
            RETURN op = 6;
        END IF;
        IF kind = 2 THEN
            op := get_byte(leaf, pos);
            SELECT * INTO operand FROM hs_meta_value(leaf, pos + 1);
            RETURN hs_meta_holds(hs_meta_order(stored.tag, stored.txt, stored.num, stored.dbl,
                                               operand.tag, operand.txt, operand.num, operand.dbl), op);
        END IF;
        v := hs_varint(leaf, pos); count := v[1]; pos := v[2];
        FOR i IN 1..count LOOP
            SELECT * INTO operand FROM hs_meta_value(leaf, pos);
            IF hs_meta_holds(hs_meta_order(stored.tag, stored.txt, stored.num, stored.dbl,
                                           operand.tag, operand.txt, operand.num, operand.dbl), 5) THEN RETURN true; END IF;
            pos := operand.next;
        END LOOP;
        RETURN false;
    END $$;
    """#
}
