//! Rendering through the whole environment: each global and filter, the Python behaviours, the
//! errors, and hostile templates that must end quickly with an error.
#![forbid(unsafe_code)]

use super::*;

fn render_with(template: &str, request: &str) -> Result<String, ChatError> {
    let mut tokens = SpecialTokens::new();
    tokens.set("bos_token", "<s>");
    tokens.set("eos_token", "</s>");
    let t = ChatTemplate::new(template, tokens)?;
    t.set_fixed_time(Some(1_741_356_309));
    t.render(&RenderRequest::from_json(request)?)
}

fn render(template: &str) -> Result<String, ChatError> {
    render_with(
        template,
        r#"{"messages": [{"role": "user", "content": "Hi"}], "tools": [{"type": "function", "function": {"name": "f", "parameters": {"b": 1, "a": [true, null, 1.5]}}}]}"#,
    )
}

#[test]
fn settings_trim_and_lstrip_blocks_and_drop_one_trailing_newline() {
    let t = "{% for m in messages %}\n    {% if true %}\n[{{ m.role }}]\n    {% endif %}\n{% endfor %}\n";
    assert_eq!(render(t).unwrap(), "[user]\n");
    assert_eq!(render("a\n\n").unwrap(), "a\n");
}

#[test]
fn variables_transformers_passes() {
    assert_eq!(
        render("{{ bos_token }}|{{ eos_token }}|{{ unk_token }}|{{ add_generation_prompt }}|{{ documents }}|{{ messages[0] }}")
            .unwrap(),
        "<s>|</s>||False|None|{'role': 'user', 'content': 'Hi'}"
    );
    assert_eq!(render("{{ unk_token is defined }}").unwrap(), "False");
}

#[test]
fn raise_exception_carries_the_template_message() {
    let e = render("{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...') }}")
        .unwrap_err();
    assert_eq!(
        e,
        ChatError::Raised {
            message: "Conversation roles must alternate user/assistant/user/assistant/...".into()
        }
    );
    // raised inside a macro and a loop, still the template's message
    let e = render("{% macro m() %}{{ raise_exception('deep') }}{% endmacro %}{% for x in [1] %}{{ m() }}{% endfor %}")
        .unwrap_err();
    assert_eq!(
        e,
        ChatError::Raised {
            message: "deep".into()
        }
    );
}

#[test]
fn strftime_now_writes_the_fixed_instant() {
    assert_eq!(
        render("{{ strftime_now('%d %b %Y') }}|{{ strftime_now('%Y-%m-%d %H:%M') }}").unwrap(),
        "07 Mar 2025|2025-03-07 14:05"
    );
}

#[test]
fn tojson_as_transformers_defines_it() {
    let f = "{% set p = tools[0].function.parameters %}";
    assert_eq!(
        render(&format!("{f}{{{{ p | tojson }}}}")).unwrap(),
        r#"{"b": 1, "a": [true, null, 1.5]}"#
    );
    assert_eq!(
        render(&format!(
            "{f}{{{{ p | tojson(indent=2, sort_keys=true) }}}}"
        ))
        .unwrap(),
        "{\n  \"a\": [\n    true,\n    null,\n    1.5\n  ],\n  \"b\": 1\n}"
    );
    assert_eq!(
        render(&format!("{f}{{{{ p | tojson(separators=(',', ':')) }}}}")).unwrap(),
        r#"{"b":1,"a":[true,null,1.5]}"#
    );
    assert_eq!(
        render("{{ 'é<' | tojson }}|{{ 'é' | tojson(ensure_ascii=true) }}").unwrap(),
        "\"é<\"|\"\\u00e9\""
    );
    assert!(matches!(
        render("{{ x | tojson(bogus=1) }}"),
        Err(ChatError::Render { .. })
    ));
    assert!(matches!(
        render("{{ nothing | tojson }}"),
        Err(ChatError::Render { .. })
    ));
}

#[test]
fn python_printing_methods_and_tests() {
    assert_eq!(
        render("{{ none }}|{{ true }}|{{ 1.0 }}|{{ [1, 'a'] }}|{{ 7 // 2 }}|{{ 7 / 2 }}").unwrap(),
        "None|True|1.0|[1, 'a']|3|3.5"
    );
    assert_eq!(render("{{ true | string }}|{{ ' x '.strip() }}|{{ 'a,b'.split(',') }}|{{ messages[0].get('name', 'n') }}").unwrap(), "True|x|['a', 'b']|n");
    assert_eq!(
        render("{% for k, v in messages[0].items() %}{{ k }}={{ v }};{% endfor %}").unwrap(),
        "role=user;content=Hi;"
    );
    assert_eq!(render("{{ 'ab' is sequence }}|{{ true is number }}|{{ tools is none }}|{{ documents is none }}").unwrap(), "True|True|False|True");
    assert_eq!(
        render("{{ messages[-1:] | length }}|{{ 'hello'[1:3] }}").unwrap(),
        "1|el"
    );
}

#[test]
fn select_family_returns_generators() {
    assert_eq!(
        render("{{ messages | selectattr('role', 'equalto', 'user') | list | length }}").unwrap(),
        "1"
    );
    // Jinja2: a generator is true even when empty, and has no length
    assert_eq!(
        render("{{ 'yes' if messages | selectattr('role', 'equalto', 'x') }}").unwrap(),
        "yes"
    );
    assert!(render("{{ messages | map(attribute='role') | tojson }}").is_err());
    // none in, nothing out
    assert_eq!(
        render("{{ documents | selectattr('a') | list }}").unwrap(),
        "[]"
    );
}

#[test]
fn none_tools_are_not_iterable_as_in_python() {
    let e = render_with(
        "{% for t in tools %}{{ t }}{% endfor %}",
        r#"{"messages": [{"role": "user", "content": "Hi"}]}"#,
    )
    .unwrap_err();
    assert!(matches!(e, ChatError::Render { .. }), "{e:?}");
}

#[test]
fn generation_blocks_render_their_body() {
    assert_eq!(
        render("a{% generation %}b{% endgeneration %}c").unwrap(),
        "abc"
    );
}

#[test]
fn syntax_and_render_errors_are_typed() {
    let e = ChatTemplate::new("{% for %}", SpecialTokens::new()).unwrap_err();
    assert!(matches!(e, ChatError::Syntax { line: 1, .. }), "{e:?}");
    let e = render("{{ messages[0].content.nope.deeper }}").unwrap_err();
    assert!(matches!(e, ChatError::Render { line: 1, .. }), "{e:?}");
    let e = render("{{ 1 | no_such_filter }}").unwrap_err();
    assert!(
        matches!(e, ChatError::Syntax { .. } | ChatError::Render { .. }),
        "{e:?}"
    );
}

#[test]
fn hostile_templates_end_with_a_limit_error() {
    let loops = "{% for i in range(100000) %}{% for j in range(100000) %}x{% endfor %}{% endfor %}";
    assert!(
        matches!(render(loops), Err(ChatError::Limit { .. })),
        "nested loops"
    );
    let growth = "{% set ns = namespace(s='x') %}{% for i in range(100) %}{% set ns.s = ns.s ~ ns.s %}{% endfor %}{{ ns.s | length }}";
    assert!(
        matches!(render(growth), Err(ChatError::Limit { .. })),
        "doubling string"
    );
    let recursion = "{% macro r(n) %}{{ r(n + 1) }}{% endmacro %}{{ r(0) }}";
    assert!(
        matches!(render(recursion), Err(ChatError::Limit { .. })),
        "recursion"
    );
    let repeat = "{{ 'x' * 1000000000 }}";
    assert!(render(repeat).is_err(), "huge repetition");
}

#[test]
fn templates_the_audit_flags_are_refused() {
    for t in [
        "{{ ''.__class__.__mro__ }}",
        "{{ cycler.__init__.__globals__.os.popen('id').read() }}",
        "{{ self._TemplateReference__context }}",
    ] {
        match ChatTemplate::new(t, SpecialTokens::new()) {
            Err(e @ ChatError::Refused { .. }) => {
                let ChatError::Refused { rule, .. } = &e else {
                    unreachable!()
                };
                assert!(rule.starts_with("template."), "{t}");
                // the message says the refusal is deliberate (Jinja2 may render such a template)
                let message = e.to_string();
                assert!(message.contains("refused on purpose"), "{message}");
                assert!(message.contains(&format!("[{rule}]")), "{message}");
            }
            other => panic!("{t}: {other:?}"),
        }
    }
}

#[test]
fn sandbox_has_no_way_out() {
    // nothing of Python or the host is reachable: these names are undefined or fail
    for t in [
        "{{ ''.__class__ }}",
        "{{ cycler.__init__.__globals__ }}",
        "{{ self._TemplateReference__context }}",
        "{% include '/etc/passwd' %}",
        "{% import 'x' as y %}",
        "{{ config }}{{ request }}{{ os }}",
    ] {
        if let Ok(s) = render(t) {
            assert!(s.is_empty() || s == "None", "{t} -> {s}");
        }
    }
}

#[test]
fn templates_come_from_the_file() {
    let mut b = crate::GgufBuilder::new();
    b.set("tokenizer.ggml.tokens", vec!["<unk>", "<s>", "</s>"])
        .unwrap();
    b.set("tokenizer.ggml.bos_token_id", 1u32).unwrap();
    b.set(TEMPLATE_KEY, "{{ bos_token }}{{ messages[0].content }}")
        .unwrap();
    b.set(
        "tokenizer.chat_template.tool_use",
        "tools:{{ tools | length }}",
    )
    .unwrap();
    b.set("tokenizer.chat_template.bad", 7u32).unwrap();
    let bytes = b.to_vec().unwrap();
    let g = Gguf::from_bytes(&bytes).unwrap();
    let req = RenderRequest::from_json(
        r#"{"messages": [{"role": "user", "content": "Hi"}], "tools": []}"#,
    )
    .unwrap();
    assert_eq!(
        ChatTemplate::from_gguf(&g, None)
            .unwrap()
            .render(&req)
            .unwrap(),
        "<s>Hi"
    );
    assert_eq!(
        ChatTemplate::from_gguf(&g, Some("tool_use"))
            .unwrap()
            .render(&req)
            .unwrap(),
        "tools:0"
    );
    assert_eq!(
        ChatTemplate::from_gguf(&g, Some("default"))
            .unwrap()
            .render(&req)
            .unwrap(),
        "<s>Hi"
    );
    assert_eq!(template_names(&g), ["tool_use", "bad"]);
    assert_eq!(default_name(&g, true), Some("tool_use"));
    assert_eq!(default_name(&g, false), None);
    assert!(matches!(
        ChatTemplate::from_gguf(&g, Some("bad")),
        Err(ChatError::NotText { .. })
    ));
    match ChatTemplate::from_gguf(&g, Some("rag")) {
        Err(ChatError::NoTemplate { key, available }) => {
            assert_eq!(key, "tokenizer.chat_template.rag");
            assert_eq!(available.len(), 3);
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn failures_carry_the_kind_jinja2_would_raise() {
    let kind = |t: &str| match render(t) {
        Err(ChatError::Render { kind, .. }) => Some(kind),
        _ => None,
    };
    assert_eq!(kind("{{ undefined_x.y }}"), Some(RenderFailure::Undefined));
    assert_eq!(
        kind("{{ no_such_function() }}"),
        Some(RenderFailure::Undefined)
    );
    assert_eq!(kind("{{ 'a' + 1 }}"), Some(RenderFailure::Type));
    assert_eq!(
        kind("{% for x in tools[0].nope %}{% endfor %}{{ 1 + none }}"),
        Some(RenderFailure::Type)
    );
    assert_eq!(
        kind("{{ 'x'|no_such_filter }}"),
        Some(RenderFailure::UnknownFilter)
    );
    assert_eq!(
        kind("{% set l = [] %}{{ l.append(1) }}"),
        Some(RenderFailure::Unsafe)
    );
    assert_eq!(kind("{{ 'x'.items() }}"), Some(RenderFailure::Undefined));
    assert_eq!(
        kind("{% set a, b = [1, 2, 3] %}"),
        Some(RenderFailure::Value)
    );
    assert_eq!(kind("{{ 1 // 0 }}"), Some(RenderFailure::ZeroDivision));
    assert_eq!(kind("{{ 1 % 0 }}"), Some(RenderFailure::ZeroDivision));
}
