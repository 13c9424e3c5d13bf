//! config.json's hyperparameters as the script looks them up: the first of several names present
//! (`find_hparam`), and the rope parameters gathered into one object (`rope_parameters`, else
//! `rope_scaling`, with the global theta, type, partial rotary factor and original context
//! mirrored into it).
#![forbid(unsafe_code)]

use std::path::PathBuf;

use serde_json::{Map, Value};

use crate::error::CheckpointError;

/// A checkpoint's config, read as the script reads it.
#[derive(Clone, Debug)]
pub struct Hparams {
    path: PathBuf,
    map: Map<String, Value>,
    rope: Map<String, Value>,
}

impl Hparams {
    /// `map` is config.json (text_config lifted); `path` names it in errors.
    pub fn new(path: PathBuf, map: Map<String, Value>) -> Self {
        let mut rope = match map
            .get("rope_parameters")
            .or_else(|| map.get("rope_scaling"))
        {
            Some(Value::Object(o)) => o.clone(),
            _ => Map::new(),
        };
        let h = Hparams {
            path,
            map,
            rope: Map::new(),
        };
        let theta = h.find(&[
            "global_rope_theta",
            "rope_global_theta",
            "rope_theta_global",
            "rope_theta",
            "rotary_emb_base",
        ]);
        let local_theta = h.find(&[
            "local_rope_theta",
            "rope_local_theta",
            "rope_theta_local",
            "swa_rope_theta",
            "rope_local_base_freq",
        ]);
        let partial = h.find(&["partial_rotary_factor", "rope_pct", "rope_percent"]);
        let orig = h.find(&["original_max_position_embeddings"]);
        if !rope.contains_key("full_attention") && !rope.contains_key("sliding_attention") {
            if let Some(t) = local_theta {
                let mut o = Map::new();
                o.insert("rope_theta".into(), t.clone());
                rope.insert("sliding_attention".into(), Value::Object(o));
            }
            if !rope.contains_key("rope_theta") {
                if let Some(t) = theta {
                    rope.insert("rope_theta".into(), t.clone());
                }
            }
            if !rope.contains_key("rope_type") {
                if let Some(t) = rope.get("type").filter(|t| !t.is_null()).cloned() {
                    rope.insert("rope_type".into(), t);
                }
            }
            if !rope.contains_key("partial_rotary_factor") {
                if let Some(p) = partial {
                    rope.insert("partial_rotary_factor".into(), p.clone());
                }
            }
            if !rope.contains_key("original_max_position_embeddings") {
                if let Some(o) = orig {
                    rope.insert("original_max_position_embeddings".into(), o.clone());
                }
            }
        }
        Hparams { rope, ..h }
    }

    /// config.json's path.
    pub fn path(&self) -> &PathBuf {
        &self.path
    }

    /// The value of `key` (null counts as present, as in Python's `in`).
    pub fn get(&self, key: &str) -> Option<&Value> {
        self.map.get(key)
    }

    /// The value of the first of `keys` present.
    pub fn find(&self, keys: &[&str]) -> Option<&Value> {
        keys.iter().find_map(|k| self.map.get(*k))
    }

    /// The rope parameters (`self.rope_parameters` of the script).
    pub fn rope(&self) -> &Map<String, Value> {
        &self.rope
    }

    /// The rope parameters of full attention (`rope_parameters.get("full_attention", ...)`).
    pub fn rope_full(&self) -> &Map<String, Value> {
        match self.rope.get("full_attention") {
            Some(Value::Object(o)) => o,
            _ => &self.rope,
        }
    }

    fn bad(&self, key: &str, expected: &str) -> CheckpointError {
        CheckpointError::Json {
            path: self.path.clone(),
            problem: format!("key '{key}': expected {expected}"),
        }
    }

    /// The first of `keys` present as a uint32, `None` when none is present or it is null.
    pub fn find_u32(&self, keys: &[&str]) -> Result<Option<u32>, CheckpointError> {
        let Some(k) = keys.iter().find(|k| self.map.contains_key(**k)) else {
            return Ok(None);
        };
        match &self.map[*k] {
            Value::Null => Ok(None),
            v => as_u32(v)
                .map(Some)
                .ok_or_else(|| self.bad(k, "a whole number that fits 32 bits")),
        }
    }

    /// A required uint32.
    pub fn u32(&self, key: &str) -> Result<u32, CheckpointError> {
        self.find_u32(&[key])?
            .ok_or_else(|| self.bad(key, "a whole number (the key is absent)"))
    }

    /// The first of `keys` present as a float32.
    pub fn find_f32(&self, keys: &[&str]) -> Result<Option<f32>, CheckpointError> {
        let Some(k) = keys.iter().find(|k| self.map.contains_key(**k)) else {
            return Ok(None);
        };
        match &self.map[*k] {
            Value::Null => Ok(None),
            v => as_f32(v).map(Some).ok_or_else(|| self.bad(k, "a number")),
        }
    }

    /// A value of a rope object as a float32.
    pub fn rope_f32(
        &self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<f32>, CheckpointError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_f32(v)
                .map(Some)
                .ok_or_else(|| self.bad(&format!("rope_parameters.{key}"), "a number")),
        }
    }

    /// A value of a rope object as a uint32.
    pub fn rope_u32(
        &self,
        obj: &Map<String, Value>,
        key: &str,
    ) -> Result<Option<u32>, CheckpointError> {
        match obj.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(v) => as_u32(v)
                .map(Some)
                .ok_or_else(|| self.bad(&format!("rope_parameters.{key}"), "a whole number")),
        }
    }

    /// An error about `key`.
    pub fn error(&self, key: &str, expected: &str) -> CheckpointError {
        self.bad(key, expected)
    }
}

/// A JSON whole number as u32 (a bool too, as Python's `struct.pack` takes it).
pub fn as_u32(v: &Value) -> Option<u32> {
    match v {
        Value::Bool(b) => Some(u32::from(*b)),
        _ => v.as_u64().and_then(|n| u32::try_from(n).ok()),
    }
}

/// A JSON number as f32 (Python's float packed: the f64 rounded to nearest).
pub fn as_f32(v: &Value) -> Option<f32> {
    match v {
        Value::Bool(b) => Some(f32::from(u8::from(*b))),
        _ => v.as_f64().map(|f| f as f32),
    }
}
