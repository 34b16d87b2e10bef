//! An archive file: one Parquet row per operation (snappy-compressed). The columns a reader filters
//! by are typed (tenant, op id, kind, order, provider, state, fingerprint, amount, when it was made
//! and when it closed, the span of the audit chain its trail covers); `record` holds everything
//! else as JSON, so DuckDB reads the files as they are:
//! `select op_id, state, json_extract(record, '$.attempts') from 'archive/**/*.parquet'`.

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

/// The Parquet file of `operations`.
pub fn write(operations: &[ArchivedOperation]) -> Result<Bytes, ArchiveError> {
    let corrupt = |error: &dyn std::fmt::Display| ArchiveError::Corrupt(format!("an archive file: {error}"));
    let schema = Arc::new(schema());
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
    let batch = RecordBatch::try_new(schema.clone(), columns).map_err(|e| corrupt(&e))?;
    let properties = WriterProperties::builder().set_compression(Compression::SNAPPY).build();
    let mut writer = ArrowWriter::try_new(Vec::new(), schema, Some(properties)).map_err(|e| corrupt(&e))?;
    writer.write(&batch).map_err(|e| corrupt(&e))?;
    let bytes = writer.into_inner().map_err(|e| corrupt(&e))?;
    Ok(Bytes::from(bytes))
}

/// The operations in the Parquet file `bytes`, in the order written.
pub fn read(bytes: Bytes) -> Result<Vec<ArchivedOperation>, ArchiveError> {
    let corrupt =
        |error: &dyn std::fmt::Display| ArchiveError::Corrupt(format!("not an archive file: {error}"));
    let reader = ParquetRecordBatchReaderBuilder::try_new(bytes)
        .map_err(|e| corrupt(&e))?
        .build()
        .map_err(|e| corrupt(&e))?;
    let mut operations = Vec::new();
    for batch in reader {
        let batch = batch.map_err(|e| corrupt(&e))?;
        let records = batch
            .column_by_name("record")
            .and_then(|column| column.as_any().downcast_ref::<StringArray>())
            .ok_or_else(|| corrupt(&"it has no record column"))?;
        for index in 0..records.len() {
            operations.push(serde_json::from_str(records.value(index)).map_err(|e| corrupt(&e))?);
        }
    }
    Ok(operations)
}
