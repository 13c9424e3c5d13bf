//! SentencePiece's `ModelProto` (sentencepiece_model.proto), only the fields the conversion reads,
//! declared with prost's derive (no protoc): the pieces, and the trainer's and normalizer's
//! specs. Unknown fields are skipped by the decoder.
#![forbid(unsafe_code)]

/// The whole model file.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ModelProto {
    /// The vocabulary, by id.
    #[prost(message, repeated, tag = "1")]
    pub pieces: Vec<SentencePiece>,
    /// How the model was trained (its type: unigram, BPE, ...).
    #[prost(message, optional, tag = "2")]
    pub trainer_spec: Option<TrainerSpec>,
    /// How text is normalized before the model runs.
    #[prost(message, optional, tag = "3")]
    pub normalizer_spec: Option<NormalizerSpec>,
}

/// One piece of the vocabulary.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SentencePiece {
    /// The piece's text (spaces as U+2581).
    #[prost(string, optional, tag = "1")]
    pub piece: Option<String>,
    /// Its score.
    #[prost(float, optional, tag = "2")]
    pub score: Option<f32>,
    /// Its type: 1 normal, 2 unknown, 3 control, 4 user-defined, 5 unused, 6 byte.
    #[prost(int32, optional, tag = "3")]
    pub r#type: Option<i32>,
}

/// The trainer's settings kept in the model.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct TrainerSpec {
    /// 1 unigram, 2 BPE, 3 word, 4 char.
    #[prost(int32, optional, tag = "3")]
    pub model_type: Option<i32>,
    /// The vocabulary size asked for.
    #[prost(int32, optional, tag = "4")]
    pub vocab_size: Option<i32>,
}

/// The normalizer's settings.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct NormalizerSpec {
    /// The rule's name (`identity`, `nmt_nfkc`, ...).
    #[prost(string, optional, tag = "1")]
    pub name: Option<String>,
    /// Whether a space is put before the text (SentencePiece's default: true).
    #[prost(bool, optional, tag = "3")]
    pub add_dummy_prefix: Option<bool>,
    /// Whether runs of spaces are collapsed (default: true).
    #[prost(bool, optional, tag = "4")]
    pub remove_extra_whitespaces: Option<bool>,
}
