//! What the backdoor analysis knows of one value ([`Flow`]): the kind of conversation data it
//! holds, the triggers it follows from, the constants it can be; and the small rules that
//! combine such facts (a field of a value, a comparison, a match against a literal), apart from
//! the walk over the syntax tree in `backdoor.rs`.
#![forbid(unsafe_code)]

/// Free text of the conversation: a message's content, a name, a tool argument.
pub(super) const CONTENT: u16 = 1;
/// A structural field: a role, a content part's `type`.
pub(super) const STRUCT: u16 = 2;
/// A container of the conversation: the messages, a message, its tool calls.
pub(super) const OBJ: u16 = 4;
/// True when the conversation matched a literal.
pub(super) const POS: u16 = 8;
/// True when the conversation did not match a literal.
pub(super) const NEG: u16 = 16;
/// Assigned a value in a branch taken on a trigger (compared with a literal, it is one).
pub(super) const GATED: u16 = 32;
/// Of a stored fact: assigned, outside any trigger's branch, a value that may be true (so that
/// its truth implies no match), or one that may be false.
pub(super) const FREE_TRUE: u16 = 64;
pub(super) const FREE_FALSE: u16 = 128;
/// A table (a map literal) whose values hold fixed prose: looked up by what the conversation
/// says, it substitutes a literal for it.
pub(super) const PROSE_TABLE: u16 = 256;
pub(super) const DATA: u16 = CONTENT | STRUCT | OBJ;
pub(super) const TRIGGER: u16 = POS | NEG;

/// Constant strings kept per value, and their length.
pub(super) const MAX_LITS: usize = 8;
pub(super) const MAX_LIT_LEN: usize = 256;

/// Role and content-part names of chat formats: comparing a role or `type` with one of these
/// chooses a turn's layout.
pub(super) const LAYOUT_NAMES: &[&str] = &[
    "system",
    "user",
    "assistant",
    "tool",
    "tools",
    "ipython",
    "function",
    "functions",
    "developer",
    "model",
    "human",
    "gpt",
    "bot",
    "observation",
    "tool_response",
    "tool_result",
    "tool_results",
    "tool_call",
    "tool_calls",
    "tool_use",
    "document",
    "documents",
    "context",
    "environment",
    "critic",
    "text",
    "image",
    "image_url",
    "video",
    "video_url",
    "audio",
    "input_audio",
    "file",
    "thinking",
    "reasoning",
    "redacted_thinking",
    "json",
    "json_object",
    "object",
    "string",
    "array",
    "plugin",
    "code",
    "output",
    "input",
    "response",
    "assistant_thinking",
    "root",
];

/// JSON Schema's type names and keywords: a tool's parameters are a schema, and a template that
/// renders it chooses the layout by a property's `type` or by the key it is at (`properties`,
/// `description`, `required`...).
pub(super) const SCHEMA_WORDS: &[&str] = &[
    "string",
    "number",
    "integer",
    "boolean",
    "array",
    "object",
    "null",
    "any",
    "type",
    "properties",
    "required",
    "items",
    "description",
    "enum",
    "nullable",
    "default",
    "title",
    "format",
    "anyof",
    "oneof",
    "allof",
    "const",
    "minimum",
    "maximum",
    "pattern",
    "additionalproperties",
    "$ref",
    "$defs",
    "examples",
];

/// Fields whose value is a container, not text.
const OBJ_FIELDS: &[&str] = &[
    "messages",
    "tool_calls",
    "function",
    "parameters",
    "properties",
    "tools",
    "items",
    "keys",
    "values",
];

/// What is known of a value.
#[derive(Clone, Default, Debug, PartialEq)]
pub(super) struct Flow {
    pub(super) bits: u16,
    /// The constant strings it can be (when it holds no conversation data).
    pub(super) lits: Vec<String>,
    /// The literal a trigger matches, for the message.
    pub(super) why: Option<String>,
}

impl Flow {
    pub(super) fn lit(s: &str) -> Flow {
        let mut f = Flow::default();
        if s.len() <= MAX_LIT_LEN {
            f.lits.push(s.to_string());
        }
        f
    }

    pub(super) fn data(bits: u16) -> Flow {
        Flow {
            bits,
            ..Flow::default()
        }
    }

    /// What of it follows from triggers (passed on to what is computed from it).
    pub(super) fn triggers(&self) -> u16 {
        self.bits & (TRIGGER | GATED)
    }

    /// Merges `o` in; whether anything was new.
    pub(super) fn join(&mut self, o: &Flow) -> bool {
        let before = (self.bits, self.lits.len());
        self.bits |= o.bits;
        for l in &o.lits {
            if self.lits.len() < MAX_LITS && !self.lits.contains(l) {
                self.lits.push(l.clone());
            }
        }
        if self.why.is_none() {
            self.why.clone_from(&o.why);
        }
        before != (self.bits, self.lits.len())
    }

    pub(super) fn union(mut self, o: &Flow) -> Flow {
        self.join(o);
        self
    }

    /// The same value without its constants (a function of it).
    pub(super) fn opaque(mut self) -> Flow {
        self.lits.clear();
        self
    }

    /// Non-blank constants: what a trigger can match.
    pub(super) fn literals(&self) -> Vec<&str> {
        if self.bits & DATA != 0 {
            return Vec::new();
        }
        self.lits
            .iter()
            .map(String::as_str)
            .filter(|s| !s.trim().is_empty())
            .collect()
    }
}

/// `POS` and `NEG` swapped.
pub(super) fn negate(bits: u16) -> u16 {
    (bits & !TRIGGER) | ((bits & POS) << 1) | ((bits & NEG) >> 1)
}

/// The kind of value a field of the conversation holds.
pub(super) fn field_kind(name: &str) -> u16 {
    if matches!(name, "role" | "type") {
        STRUCT
    } else if OBJ_FIELDS.contains(&name) {
        OBJ
    } else {
        CONTENT
    }
}

/// A comparison's value without a match of its own: what its sides' triggers make of it.
pub(super) fn order(a: &Flow, b: &Flow) -> Flow {
    let t = (a.bits | b.bits) & TRIGGER;
    Flow {
        bits: if t != 0 { TRIGGER } else { 0 },
        lits: Vec::new(),
        why: a.why.clone().or_else(|| b.why.clone()),
    }
}

/// The literal `data` is matched against when `data` comes from the conversation and `lit` is a
/// non-blank constant, unless `data` is only a role or `type` and every literal a layout name,
/// or every literal is a JSON Schema word.
pub(super) fn matched(data: &Flow, lit: &Flow) -> Option<String> {
    if data.bits & (CONTENT | STRUCT | OBJ) == 0 {
        return None;
    }
    let lits = lit.literals();
    if data.bits & (CONTENT | OBJ) == 0 {
        // a role or type: layout when every literal is a layout name (a role's, a content
        // part's, or a tool schema's type)
        return lits
            .into_iter()
            .find(|l| {
                let l = l.trim().to_lowercase();
                !LAYOUT_NAMES.contains(&l.as_str()) && !SCHEMA_WORDS.contains(&l.as_str())
            })
            .map(str::to_string);
    }
    // a tool's schema walked (its keys and `type`s compared, `'items' in schema`): layout when
    // every literal is a schema word. The analysis does not tell a tool's schema from a
    // message's text, so a trigger that is exactly a schema word goes unseen anywhere.
    lits.into_iter()
        .find(|l| !SCHEMA_WORDS.contains(&l.trim().to_lowercase().as_str()))
        .map(str::to_string)
}

/// For a name assigned in a trigger's branch compared with a literal it never holds outside
/// one: the value compared with (why the branch needs the trigger).
pub(super) fn gated(x: &Flow, lit: &Flow) -> Option<String> {
    if x.bits & GATED == 0 || x.bits & DATA != 0 {
        return None;
    }
    lit.literals()
        .into_iter()
        .find(|l| !x.lits.iter().any(|f| f == l))
        .map(|_| x.why.clone().unwrap_or_default())
}

/// A field of a value: of the conversation's kind when the value is.
pub(super) fn field(base: &Flow, name: &str) -> Flow {
    let mut out = Flow::data(base.triggers());
    out.why.clone_from(&base.why);
    if base.bits & DATA != 0 {
        out.bits |= field_kind(name);
    }
    out
}

/// What the items of a value of `bits` are: a container's are containers and text.
pub(super) fn element_kind(bits: u16) -> u16 {
    if bits & OBJ != 0 {
        OBJ | (bits & CONTENT)
    } else if bits & DATA != 0 {
        CONTENT
    } else {
        0
    }
}

/// The text of a value (a role sliced or replaced is text).
pub(super) fn text_of(mut f: Flow) -> Flow {
    if f.bits & DATA != 0 {
        f.bits = (f.bits & TRIGGER) | CONTENT;
    }
    f
}

/// A filter or method that changes case or trims, on a constant.
pub(super) fn case(name: &str, s: &str) -> String {
    match name {
        "lower" => s.to_lowercase(),
        "upper" => s.to_uppercase(),
        "trim" | "strip" => s.trim().to_string(),
        "lstrip" => s.trim_start().to_string(),
        "rstrip" => s.trim_end().to_string(),
        _ => s.to_string(),
    }
}
