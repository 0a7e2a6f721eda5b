export function UploadProgress({ percent }: { percent: number | null }) {
  if (percent === null) return null;
  return (
    <div className="upload-progress">
      <label>
        Uploading… {percent}%
        <progress max={100} value={percent} />
      </label>
    </div>
  );
}
