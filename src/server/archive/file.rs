//! An archive file, Parquet (snappy-compressed): one row per operation, or one row per record of a
//! segment of the audit chain. The columns a reader filters by are typed (for an operation: tenant,
//! op id, kind, order, provider, state, fingerprint, amount, when it was made and when it closed,
//! the span of the audit chain its trail covers; for an audit record: tenant, seq, when, who, what,
//! about which operation, its hashes); `record` holds everything as JSON, so DuckDB reads the files
//! as they are:
//! `select op_id, state, json_extract(record, '$.attempts') from 'archive/*/operations/**/*.parquet'`.

use arrow_array::builder::{Int64Builder, StringBuilder, TimestampMicrosecondBuilder};
use arrow_array::{Array, ArrayRef, RecordBatch, StringArray};
use arrow_schema::{DataType, Field, Schema, TimeUnit};
use bytes::Bytes;
use parquet::arrow::arrow_reader::ParquetRecordBatchReaderBuilder;
use parquet::arrow::ArrowWriter;
use parquet::basic::Compression;
use parquet::file::properties::WriterProperties;
use std::sync::Arc;

use super::ArchiveError;
use crate::domain::archive::ArchivedOperation;
use crate::domain::audit::AuditRecord;
use crate::domain::params::CanonicalParams;

fn schema() -> Schema {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    let time =
        |name: &str| Field::new(name, DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false);
    Schema::new(vec![
        text("tenant", false),
        text("op_id", false),
        text("kind", false),
        text("subject", false),
        text("provider", false),
        text("state", false),
        text("fingerprint", false),
        text("compensates", true),
        Field::new("amount_minor", DataType::Int64, true),
        text("amount_currency", true),
        time("created_at"),
        time("closed_at"),
        Field::new("first_seq", DataType::Int64, true),
        Field::new("last_seq", DataType::Int64, true),
        text("record", false),
    ])
}

fn audit_schema() -> Schema {
    let text = |name: &str, nullable: bool| Field::new(name, DataType::Utf8, nullable);
    Schema::new(vec![
        text("tenant", false),
        Field::new("seq", DataType::Int64, false),
        Field::new("at", DataType::Timestamp(TimeUnit::Microsecond, Some("UTC".into())), false),
        text("actor", false),
        text("role", false),
        text("action", false),
        text("op_id", true),
        text("prev_hash", false),
        text("hash", false),
        text("record", false),
    ])
}

fn corrupt_file(error: &dyn std::fmt::Display) -> ArchiveError {
    ArchiveError::Corrupt(format!("an archive file: {error}"))
}

/// `columns` as one snappy-compressed Parquet file of `schema`.
fn parquet(schema: Schema, columns: Vec<ArrayRef>) -> Result<Bytes, ArchiveError> {
    let schema = Arc::new(schema);
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(|e| corrupt_file(&e))?;
    let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut writer =
        ArrowWriter::try_new(Vec::new(), schema, Some(properties)).map_err(|e| corrupt_file(&e))?;
    writer.write(&batch).map_err(|e| corrupt_file(&e))?;
    Ok(Bytes::from(writer.into_inner().map_err(|e| corrupt_file(&e))?))
}

/// The Parquet file of a segment of the audit chain.
pub fn write_audit(records: &[AuditRecord]) -> Result<Bytes, ArchiveError> {
    let mut texts: Vec<StringBuilder> = (0..4).map(|_| StringBuilder::new()).collect();
    let (mut op_id, mut prev_hash, mut hash, mut record) =
        (StringBuilder::new(), StringBuilder::new(), StringBuilder::new(), StringBuilder::new());
    let mut seq = Int64Builder::new();
    let mut at = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    for each in records {
        let entry = &each.entry;
        for (builder, value) in
            texts.iter_mut().zip([&entry.tenant, &entry.actor, &entry.role, &entry.action])
        {
            builder.append_value(value);
        }
        seq.append_value(i64::try_from(each.seq).map_err(|e| corrupt_file(&e))?);
        at.append_value(entry.at.timestamp_micros());
        op_id.append_option(entry.op_id.as_deref());
        prev_hash.append_value(&each.prev_hash);
        hash.append_value(&each.hash);
        record.append_value(serde_json::to_string(each).map_err(|e| corrupt_file(&e))?);
    }
    let mut texts = texts.into_iter().map(|mut builder| Arc::new(builder.finish()) as ArrayRef);
    let mut next_text = || texts.next().expect("four text columns");
    let columns: Vec<ArrayRef> = vec![
        next_text(),
        Arc::new(seq.finish()),
        Arc::new(at.finish()),
        next_text(),
        next_text(),
        next_text(),
        Arc::new(op_id.finish()),
        Arc::new(prev_hash.finish()),
        Arc::new(hash.finish()),
        Arc::new(record.finish()),
    ];
    parquet(audit_schema(), columns)
}

/// The audit records in the Parquet file `bytes`, in the order written.
pub fn read_audit(bytes: Bytes) -> Result<Vec<AuditRecord>, ArchiveError> {
    records(bytes)
}

/// The Parquet file of `operations`.
pub fn write(operations: &[ArchivedOperation]) -> Result<Bytes, ArchiveError> {
    let corrupt = corrupt_file;
    let mut texts: Vec<StringBuilder> = (0..8).map(|_| StringBuilder::new()).collect();
    let (mut amount_minor, mut amount_currency) = (Int64Builder::new(), StringBuilder::new());
    let mut created_at = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    let mut closed_at = TimestampMicrosecondBuilder::new().with_timezone("UTC");
    let (mut first_seq, mut last_seq, mut record) =
        (Int64Builder::new(), Int64Builder::new(), StringBuilder::new());
    for operation in operations {
        let columns = [
            Some(operation.tenant.as_str()),
            Some(operation.op_id.as_str()),
            Some(operation.kind.as_str()),
            Some(operation.subject.as_str()),
            Some(operation.provider.as_str()),
            Some(operation.state().as_str()),
            Some(operation.snapshot.fingerprint.as_str()),
            operation.compensates.as_ref().map(|id| id.as_str()),
        ];
        for (builder, value) in texts.iter_mut().zip(columns) {
            builder.append_option(value);
        }
        let amount =
            CanonicalParams::from_value(operation.params.clone()).ok().and_then(|p| p.money("amount"));
        amount_minor.append_option(amount.as_ref().map(|money| money.minor));
        amount_currency.append_option(amount.as_ref().map(|money| money.currency.as_str().to_owned()));
        created_at.append_value(operation.created_at.timestamp_micros());
        closed_at.append_value(operation.closed_at.timestamp_micros());
        let seqs = operation.trail.iter().map(|entry| entry.seq as i64);
        first_seq.append_option(seqs.clone().min());
        last_seq.append_option(seqs.max());
        record.append_value(serde_json::to_string(operation).map_err(|e| corrupt(&e))?);
    }
    let mut columns: Vec<ArrayRef> =
        texts.iter_mut().map(|builder| Arc::new(builder.finish()) as ArrayRef).collect();
    columns.push(Arc::new(amount_minor.finish()));
    columns.push(Arc::new(amount_currency.finish()));
    columns.push(Arc::new(created_at.finish()));
    columns.push(Arc::new(closed_at.finish()));
    columns.push(Arc::new(first_seq.finish()));
    columns.push(Arc::new(last_seq.finish()));
    columns.push(Arc::new(record.finish()));
    parquet(schema(), columns)
}

/// The operations in the Parquet file `bytes`, in the order written.
pub fn read(bytes: Bytes) -> Result<Vec<ArchivedOperation>, ArchiveError> {
    records(bytes)
}

/// The rows of the Parquet file `bytes`, each read from its `record` column.
fn records<T: serde::de::DeserializeOwned>(bytes: Bytes) -> Result<Vec<T>, ArchiveError> {
    let corrupt =
        |error: &dyn std::fmt::Display| ArchiveError::Corrupt(format!("not an archive file: {error}"));
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .map_err(|e| corrupt(&e))?
        .build()
        .map_err(|e| corrupt(&e))?;
    let mut rows = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| corrupt(&e))?;
        let records = batch
            .column_by_name("record")
            .and_then(|column| column.as_any().downcast_ref::<StringArray>())
            .ok_or_else(|| corrupt(&"it has no record column"))?;
        for index in 0..records.len() {
            rows.push(serde_json::from_str(records.value(index)).map_err(|e| corrupt(&e))?);
        }
    }
    Ok(rows)
}
