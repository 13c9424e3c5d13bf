//! What a render is asked for, and the variables the template sees, made as transformers'
//! `apply_chat_template` makes them: the conversation must be a non-empty list of mappings;
//! each message loses the keys whose value is null, and a message's reasoning (the first of
//! `reasoning_content`, `thinking`, `reasoning` that is set) is copied to `thinking` (first)
//! and `reasoning_content`; `tools` and `documents` are none when not given; keyword arguments
//! override the special tokens.
#![forbid(unsafe_code)]

use minijinja::value::ValueKind;
use minijinja::Value;

use super::tokens::SpecialTokens;
use crate::error::ChatError;

/// The names a message's reasoning goes by; the first is the one chat templates read.
const REASONING_FIELDS: [&str; 3] = ["reasoning_content", "thinking", "reasoning"];

/// Variables the render sets itself, which keyword arguments may not replace.
const FIXED_VARIABLES: [&str; 4] = ["messages", "tools", "documents", "add_generation_prompt"];

/// One render: the conversation and the variables beside it.
///
/// Values are template values ([`minijinja::Value`], re-exported as
/// [`TemplateValue`](super::TemplateValue)); [`RenderRequest::from_json`] reads them from JSON
/// text keeping every mapping's key order, which templates that iterate over a message see.
#[derive(Clone, Debug, Default)]
pub struct RenderRequest {
    /// The messages: a list of mappings (`role`, `content`, `tool_calls`, ...).
    pub messages: Value,
    /// The tools' JSON schemas (a list of mappings), or `None`.
    pub tools: Option<Value>,
    /// Documents for retrieval-augmented templates (a list of mappings), or `None`.
    pub documents: Option<Value>,
    /// Whether to end with the header of an assistant turn.
    pub add_generation_prompt: bool,
    /// Further variables (`enable_thinking`, `date_string`, ...), in order; they override the
    /// special tokens of the same name.
    pub kwargs: Vec<(String, Value)>,
}

impl RenderRequest {
    /// A request for `messages` with nothing else.
    pub fn new(messages: Value) -> Self {
        Self {
            messages,
            ..Self::default()
        }
    }

    /// A request from a JSON object `{"messages", "tools"?, "documents"?,
    /// "add_generation_prompt"? (false), "kwargs"? (an object)}`, the line format of
    /// `gguf chat --jsonl`. Other members are refused, so that a misspelt one is not silently
    /// ignored.
    pub fn from_json(text: &str) -> Result<Self, ChatError> {
        let v: Value = serde_json::from_str(text).map_err(|e| ChatError::Input {
            message: format!("not a JSON request: {e}"),
        })?;
        Self::from_value(&v)
    }

    /// A conversation as a file holds it: a list of messages, or a request object (as
    /// [`RenderRequest::from_json`] reads).
    pub fn from_conversation(v: &Value) -> Result<Self, ChatError> {
        if v.kind() == ValueKind::Map {
            Self::from_value(v)
        } else {
            Ok(Self::new(v.clone()))
        }
    }

    /// This request with what it leaves out taken from `defaults`: their tools when it has
    /// none, the generation prompt when either asks for it, their keyword arguments under its
    /// own (its value wins for a name both have).
    pub fn with_defaults(mut self, defaults: &RenderRequest) -> Self {
        if self.tools.is_none() {
            self.tools = defaults.tools.clone();
        }
        if self.documents.is_none() {
            self.documents = defaults.documents.clone();
        }
        self.add_generation_prompt |= defaults.add_generation_prompt;
        let mut kwargs = defaults.kwargs.clone();
        for (k, v) in self.kwargs {
            match kwargs.iter_mut().find(|(name, _)| *name == k) {
                Some(slot) => slot.1 = v,
                None => kwargs.push((k, v)),
            }
        }
        self.kwargs = kwargs;
        self
    }

    /// A request from a template value shaped as [`RenderRequest::from_json`] reads.
    pub fn from_value(v: &Value) -> Result<Self, ChatError> {
        if v.kind() != ValueKind::Map {
            return Err(input("a request must be a JSON object with \"messages\""));
        }
        let mut req = Self::default();
        let mut has_messages = false;
        for key in v.try_iter().map_err(|e| input(&e.to_string()))? {
            let item = v.get_item(&key).unwrap_or_default();
            let present = !item.is_none();
            match key.as_str().unwrap_or_default() {
                "messages" => {
                    req.messages = item;
                    has_messages = true;
                }
                "tools" => req.tools = present.then_some(item),
                "documents" => req.documents = present.then_some(item),
                "add_generation_prompt" => match item.kind() {
                    ValueKind::Bool => req.add_generation_prompt = item.is_true(),
                    ValueKind::None => {}
                    _ => return Err(input("\"add_generation_prompt\" must be true or false")),
                },
                "kwargs" => match item.kind() {
                    ValueKind::Map => {
                        for k in item.try_iter().map_err(|e| input(&e.to_string()))? {
                            let value = item.get_item(&k).unwrap_or_default();
                            req.kwargs.push((k.to_string(), value));
                        }
                    }
                    ValueKind::None => {}
                    _ => return Err(input("\"kwargs\" must be an object")),
                },
                other => {
                    return Err(input(&format!(
                        "unknown member \"{other}\" (a request has messages, tools, documents, add_generation_prompt, kwargs)"
                    )))
                }
            }
        }
        if !has_messages {
            return Err(input("a request must have \"messages\""));
        }
        Ok(req)
    }
}

fn input(message: &str) -> ChatError {
    ChatError::Input {
        message: message.to_string(),
    }
}

/// The messages as the template sees them (see the module's documentation).
pub(crate) fn normalize_messages(messages: &Value) -> Result<Value, ChatError> {
    if messages.kind() != ValueKind::Seq {
        return Err(input("the messages must be a list of mappings"));
    }
    let len = messages.len().unwrap_or(0);
    if len == 0 {
        return Err(input(
            "Cannot apply chat template to an empty conversation. Provide at least one message.",
        ));
    }
    let mut out = Vec::with_capacity(len);
    for message in messages.try_iter().map_err(|e| input(&e.to_string()))? {
        if message.kind() != ValueKind::Map {
            let what = if message.kind() == ValueKind::Seq {
                "a list (batches of conversations are rendered one by one)"
            } else {
                "not a mapping"
            };
            return Err(input(&format!(
                "Chat messages should be dicts, but one is {what}"
            )));
        }
        out.push(normalize_message(&message));
    }
    Ok(Value::from(out))
}

/// One message without its null keys, its reasoning aliased.
fn normalize_message(message: &Value) -> Value {
    let mut pairs: Vec<(Value, Value)> = Vec::new();
    if let Ok(keys) = message.try_iter() {
        for key in keys {
            let value = message.get_item(&key).unwrap_or_default();
            if !value.is_none() && !value.is_undefined() {
                pairs.push((key, value));
            }
        }
    }
    let reasoning = REASONING_FIELDS.iter().find_map(|field| {
        pairs
            .iter()
            .find(|(k, _)| k.as_str() == Some(field))
            .map(|(_, v)| v.clone())
    });
    if let Some(reasoning) = reasoning {
        // {"thinking": r, **message, "reasoning_content": r}: `thinking` comes first (keeping
        // the message's own value when it has one), `reasoning_content` keeps its place
        let own_thinking = take(&mut pairs, "thinking");
        pairs.insert(
            0,
            (
                Value::from("thinking"),
                own_thinking.unwrap_or_else(|| reasoning.clone()),
            ),
        );
        match pairs
            .iter_mut()
            .find(|(k, _)| k.as_str() == Some("reasoning_content"))
        {
            Some(slot) => slot.1 = reasoning,
            None => pairs.push((Value::from("reasoning_content"), reasoning)),
        }
    }
    Value::from_pairs(pairs)
}

/// Removes the pair of `key` and returns its value.
fn take(pairs: &mut Vec<(Value, Value)>, key: &str) -> Option<Value> {
    let i = pairs.iter().position(|(k, _)| k.as_str() == Some(key))?;
    Some(pairs.remove(i).1)
}

/// A list of mappings (`tools`, `documents`), or an input error naming `what`.
fn list_of_maps(v: &Value, what: &str) -> Result<(), ChatError> {
    let ok = v.kind() == ValueKind::Seq
        && v.try_iter()
            .map(|mut it| it.all(|x| x.kind() == ValueKind::Map))
            .unwrap_or(false);
    if ok {
        Ok(())
    } else {
        Err(input(&format!("{what} must be a list of JSON objects")))
    }
}

/// Every variable of one render: the special tokens, the keyword arguments over them, then the
/// messages, tools, documents and generation flag.
pub(crate) fn context(req: &RenderRequest, tokens: &SpecialTokens) -> Result<Value, ChatError> {
    let messages = normalize_messages(&req.messages)?;
    if let Some(tools) = &req.tools {
        list_of_maps(tools, "tools")?;
    }
    if let Some(documents) = &req.documents {
        list_of_maps(documents, "documents")?;
    }
    let mut vars: Vec<(String, Value)> = tokens
        .iter()
        .map(|(k, v)| (k.to_string(), Value::from(v)))
        .collect();
    for (k, v) in &req.kwargs {
        if FIXED_VARIABLES.contains(&k.as_str()) {
            return Err(input(&format!(
                "the keyword argument '{k}' would replace the variable the render sets itself"
            )));
        }
        match vars.iter_mut().find(|(name, _)| name == k) {
            Some(slot) => slot.1 = v.clone(),
            None => vars.push((k.clone(), v.clone())),
        }
    }
    let none = super::python::py_none;
    vars.push(("messages".into(), messages));
    vars.push(("tools".into(), req.tools.clone().unwrap_or_else(none)));
    vars.push((
        "documents".into(),
        req.documents.clone().unwrap_or_else(none),
    ));
    vars.push((
        "add_generation_prompt".into(),
        Value::from(req.add_generation_prompt),
    ));
    Ok(Value::from_pairs(vars))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn json(s: &str) -> Value {
        serde_json::from_str(s).unwrap()
    }

    #[test]
    fn nulls_dropped_and_reasoning_aliased_in_transformers_order() {
        let m = normalize_messages(&json(
            r#"[{"role": "assistant", "content": "a", "tool_calls": null, "reasoning_content": "r"},
                {"role": "user", "content": null, "reasoning": "x", "thinking": null}]"#,
        ))
        .unwrap();
        assert_eq!(
            super::super::python::str(&m),
            "[{'thinking': 'r', 'role': 'assistant', 'content': 'a', 'reasoning_content': 'r'}, \
             {'thinking': 'x', 'role': 'user', 'reasoning': 'x', 'reasoning_content': 'x'}]"
        );
    }

    #[test]
    fn bad_conversations_are_input_errors() {
        for bad in ["[]", "{}", "[1]", "[[{}]]", "\"hi\""] {
            assert!(
                matches!(normalize_messages(&json(bad)), Err(ChatError::Input { .. })),
                "{bad}"
            );
        }
    }

    #[test]
    fn requests_from_json() {
        let r = RenderRequest::from_json(
            r#"{"messages": [{"role": "user", "content": "hi"}], "add_generation_prompt": true,
                "kwargs": {"enable_thinking": false, "bos_token": "B"}}"#,
        )
        .unwrap();
        assert!(r.add_generation_prompt);
        assert_eq!(r.kwargs.len(), 2);
        let mut tokens = SpecialTokens::new();
        tokens.set("bos_token", "<s>");
        tokens.set("eos_token", "</s>");
        let ctx = context(&r, &tokens).unwrap();
        assert_eq!(ctx.get_attr("bos_token").unwrap().as_str(), Some("B"));
        assert_eq!(ctx.get_attr("eos_token").unwrap().as_str(), Some("</s>"));
        assert_eq!(
            super::super::python::str(&ctx.get_attr("tools").unwrap()),
            "None"
        );
        for bad in [
            "[]",
            "{}",
            r#"{"messages": [], "extra": 1}"#,
            r#"{"messages": [], "add_generation_prompt": 1}"#,
        ] {
            assert!(RenderRequest::from_json(bad).is_err(), "{bad}");
        }
        let d = RenderRequest {
            add_generation_prompt: true,
            kwargs: vec![
                ("a".into(), Value::from(1)),
                ("enable_thinking".into(), Value::from(true)),
            ],
            ..RenderRequest::default()
        };
        let r = RenderRequest::from_conversation(&json(r#"[{"role": "user"}]"#))
            .unwrap()
            .with_defaults(&d);
        assert!(r.add_generation_prompt && r.kwargs.len() == 2);
        let r =
            RenderRequest::from_json(r#"{"messages": [], "kwargs": {"enable_thinking": false}}"#)
                .unwrap()
                .with_defaults(&d);
        assert_eq!(r.kwargs[1].1, Value::from(false));
        let r = RenderRequest {
            kwargs: vec![("messages".into(), Value::from(1))],
            ..RenderRequest::new(json(r#"[{"role": "user"}]"#))
        };
        assert!(matches!(context(&r, &tokens), Err(ChatError::Input { .. })));
    }
}
